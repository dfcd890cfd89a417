import { createSvcClient, type SvcClient } from "@svc/client";
import type { EventType } from "@svc/schema";
import { UsageError } from "../cli-error";
import type { CliEnv } from "../env";
import { printJson, printTable } from "../output/print-table";
import { terminalText } from "../output/terminal-text";

export interface WebhookClientOptions {
  url?: string;
  key?: string;
}

/** A client of the running svc, as `svc ingest` finds it (--url / SVC_URL, --key / SVC_API_KEY). */
function webhookClient(env: CliEnv, options: WebhookClientOptions): SvcClient {
  const apiKey = options.key ?? env.SVC_API_KEY;
  if (!apiKey) throw new UsageError("svc webhooks needs an admin API key: --key KEY or SVC_API_KEY.");
  const baseUrl = (options.url ?? env.SVC_URL ?? `http://localhost:${env.PORT}/api`).replace(/\/+$/, "");
  if (!URL.canParse(baseUrl)) throw new UsageError(`--url: not a URL: "${baseUrl}"`);
  return createSvcClient({ baseUrl, apiKey, retry: true });
}

/** `svc webhooks add URL`: the endpoint's secret is printed alone on the last line of stdout, once. */
export async function addWebhook(
  env: CliEnv,
  url: string,
  options: WebhookClientOptions & { pair?: number[]; event?: EventType[] },
): Promise<void> {
  const endpoint = await webhookClient(env, options).createWebhook({ url, cc_pair_ids: options.pair ?? null, event_types: options.event ?? null });
  const pairs = endpoint.cc_pair_ids ? `pairs ${endpoint.cc_pair_ids.join(",")}` : "every pair";
  const events = endpoint.event_types ? endpoint.event_types.join(",") : "every event type";
  console.error(terminalText`Registered webhook ${endpoint.id} for ${endpoint.url} (${pairs}; ${events}). Its signing secret is shown only once:`);
  console.log(endpoint.secret);
}

/** `svc webhooks list`: the endpoints the key may see, never their secrets. */
export async function listWebhooks(env: CliEnv, options: WebhookClientOptions & { json?: boolean }): Promise<void> {
  const endpoints = await webhookClient(env, options).listWebhooks();
  if (options.json) return printJson(endpoints);
  if (endpoints.length === 0) return console.log("No webhooks.");
  printTable(
    ["id", "url", "pairs", "events", "created"],
    endpoints.map((endpoint) => [
      endpoint.id,
      endpoint.url,
      endpoint.cc_pair_ids?.join(",") ?? "all",
      endpoint.event_types?.join(",") ?? "all",
      endpoint.created_at,
    ]),
  );
}

/** `svc webhooks remove ID`: the endpoint and its deliveries go; pending ones are not sent. */
export async function removeWebhook(env: CliEnv, id: number, options: WebhookClientOptions): Promise<void> {
  const endpoint = await webhookClient(env, options).deleteWebhook(id);
  console.log(terminalText`Removed webhook ${endpoint.id} (${endpoint.url}).`);
}
