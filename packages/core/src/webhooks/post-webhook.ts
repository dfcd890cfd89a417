import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { webhookHeaders } from "./sign-webhook";
import { guardedLookup, isPrivateAddress } from "./webhook-address";

/** What one try of a delivery came to: a status code (any), or an error before one arrived. */
export interface WebhookTry {
  statusCode: number | null;
  error: string | null;
}

/** The most of a receiver's answer read (then dropped): its status is all that counts. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One signed POST of a delivery's body (docs/decisions.md "Webhooks"). The connection goes only to an
 * address that was checked: a name through guardedLookup, an address literal (which node connects to
 * without a lookup) here. Redirects are not followed (a 3xx is a failure, retried). The whole try is
 * bounded by `timeoutMs`, connection included.
 */
export function postWebhook({
  url,
  secret,
  eventId,
  body,
  timeoutMs,
  allowPrivate,
}: {
  url: string;
  secret: string;
  eventId: string;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}): Promise<WebhookTry> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
      resolve({ statusCode: null, error: "refused: a loopback or private address (SVC_WEBHOOK_ALLOW_PRIVATE is not set)" });
      return;
    }
    const headers = { ...webhookHeaders({ secret, id: eventId, body }), "content-length": String(Buffer.byteLength(body)), "user-agent": "svc-webhooks" };
    const transport = target.protocol === "https:" ? https : http;
    let settled = false;
    const finish = (outcome: WebhookTry) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(target, { method: "POST", headers, lookup: guardedLookup(allowPrivate) as unknown as LookupFunction, agent: false }, (response) => {
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      response.on("end", () => finish({ statusCode: response.statusCode ?? null, error: null }));
      response.on("close", () => finish({ statusCode: response.statusCode ?? null, error: null }));
      response.on("error", () => finish({ statusCode: response.statusCode ?? null, error: null }));
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `timeout: no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      const refused = error.code === "EPRIVATEADDRESS";
      finish({ statusCode: null, error: refused ? "refused: the host resolves to a loopback or private address" : `connection failed: ${error.code ?? error.message}` });
    });
    request.end(body);
  });
}
