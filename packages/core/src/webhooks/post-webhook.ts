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
/** Connections kept open to one receiver: the sender's tries in flight to one endpoint. */
export const MAX_CONNECTIONS_PER_RECEIVER = 32;

/**
 * Kept-alive connections, one pool per transport and address rule: a new TCP (and TLS) connection per
 * try capped one endpoint at a few hundred tries a second. A reused connection was opened to an
 * address that was checked when it was opened (the lookup below runs on every new connection).
 */
const agents = new Map<string, http.Agent>();
function agentFor(protocol: string, allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: MAX_CONNECTIONS_PER_RECEIVER, lookup: guardedLookup(allowPrivate) as unknown as LookupFunction };
    agent = protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One signed POST of a delivery's body (docs/decisions.md "Webhooks"). The connection goes only to an
 * address that was checked: a name through guardedLookup, an address literal (which node connects to
 * without a lookup) here. Redirects are not followed (a 3xx is a failure, retried). The whole try is
 * bounded by `timeoutMs`, connection included. A kept-alive connection the receiver closed just as it
 * was reused is tried once more on a new one (Node's advice for `reusedSocket`), within the same bound.
 */
export async function postWebhook(options: PostOptions): Promise<WebhookTry> {
  const deadline = performance.now() + options.timeoutMs;
  const first = await postOnce(options);
  if (first !== REUSED_CONNECTION_RESET) return first;
  const second = await postOnce({ ...options, timeoutMs: Math.max(1, deadline - performance.now()) });
  return second === REUSED_CONNECTION_RESET ? { statusCode: null, error: "connection failed: ECONNRESET" } : second;
}

/** A try that met a kept-alive connection the receiver had closed: nothing was received. */
const REUSED_CONNECTION_RESET = Symbol("reused connection reset");

interface PostOptions {
  url: string;
  secret: string;
  eventId: string;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

function postOnce({
  url,
  secret,
  eventId,
  body,
  timeoutMs,
  allowPrivate,
}: PostOptions): Promise<WebhookTry | typeof REUSED_CONNECTION_RESET> {
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
    const finish = (outcome: WebhookTry | typeof REUSED_CONNECTION_RESET) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(target, { method: "POST", headers, agent: agentFor(target.protocol, allowPrivate) }, (response) => {
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
      if (request.reusedSocket && error.code === "ECONNRESET") return finish(REUSED_CONNECTION_RESET);
      finish({ statusCode: null, error: refused ? "refused: the host resolves to a loopback or private address" : `connection failed: ${error.code ?? error.message}` });
    });
    request.end(body);
  });
}
