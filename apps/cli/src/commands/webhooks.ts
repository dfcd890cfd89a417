import { createSvcClient, SvcApiError, type SvcClient } from "@svc/client";
import type { EventType } from "@svc/schema";
import { UsageError } from "../cli-error";
import type { CliEnv } from "../env";
import { printJson, printTable } from "../output/print-table";
import { terminalText } from "../output/terminal-text";

// `svc webhooks …`: webhook endpoints, through svc's REST API with an admin key (as `svc ingest`
// reaches a running svc): the server decides what the key may see and register.

export interface WebhookApiOptions {
  url?: string;
  key?: string;
}

/** The client of the running svc: --url / SVC_URL (this machine's on PORT by default), --key / SVC_API_KEY. */
function webhookClient(env: CliEnv, options: WebhookApiOptions): { client: SvcClient; baseUrl: string } {
  const apiKey = options.key ?? env.SVC_API_KEY;
  if (!apiKey) throw new UsageError("svc webhooks needs an admin API key: --key KEY or SVC_API_KEY.");
  const baseUrl = (options.url ?? env.SVC_URL ?? `http://localhost:${env.PORT}/api`).replace(/\/+$/, "");
  if (!URL.canParse(baseUrl)) throw new UsageError(`--url: not a URL: "${baseUrl}"`);
  // 429 and 503 are tried again after their Retry-After; any other answer is final.
  return { client: createSvcClient({ baseUrl, apiKey, retry: true }), baseUrl };
}

/** svc's refusal as its `detail`; a connection that failed as such (fetch's own message says only "fetch failed"). */
async function call<T>(baseUrl: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SvcApiError) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`svc at ${baseUrl} could not be reached: ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
  }
}

/** `add URL`: prints the endpoint, then its secret alone on the last line of stdout (shown only this once). */
export async function addWebhook(env: CliEnv, url: string, options: WebhookApiOptions & { pair?: number[]; event?: EventType[]; json?: boolean }): Promise<void> {
  const { client, baseUrl } = webhookClient(env, options);
  const created = await call(baseUrl, client.createWebhook({ url, cc_pair_ids: options.pair ?? null, event_types: options.event ?? null }));
  if (options.json) return printJson(created);
  console.error(
    terminalText`Added webhook endpoint ${created.id} for ${created.url} (pairs: ${created.cc_pair_ids?.join(",") ?? "all"}; events: ${created.event_types?.join(",") ?? "all"}).`,
  );
  console.error("Its signing secret follows; it is shown only this once.");
  console.log(created.secret);
}

/** `list`: the endpoints the key may see; `--json` prints GET /manage/admin/webhook's body. */
export async function listWebhooks(env: CliEnv, options: WebhookApiOptions & { json?: boolean }): Promise<void> {
  const { client, baseUrl } = webhookClient(env, options);
  const endpoints = await call(baseUrl, client.listWebhooks());
  if (options.json) return printJson(endpoints);
  if (endpoints.length === 0) return console.log("No webhook endpoints.");
  printTable(
    ["id", "pairs", "events", "created", "url"],
    endpoints.map((endpoint) => [endpoint.id, endpoint.cc_pair_ids?.join(",") ?? "all", endpoint.event_types?.join(",") ?? "all", endpoint.created_at, endpoint.url]),
  );
}

/** `remove ID`: deletes the endpoint; its pending deliveries are not sent. */
export async function removeWebhook(env: CliEnv, id: number, options: WebhookApiOptions): Promise<void> {
  const { client, baseUrl } = webhookClient(env, options);
  const removed = await call(baseUrl, client.deleteWebhook(id));
  console.log(terminalText`Removed webhook endpoint ${removed.id} (${removed.url}); its pending deliveries are not sent.`);
}
