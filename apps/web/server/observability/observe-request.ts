import { randomUUID } from "node:crypto";
import type http from "node:http";
import { pinoHttp, type HttpLogger } from "pino-http";
import { webLogger } from "./web-logger";
import { webMetrics } from "./web-metrics";

/** The route label of requests Next.js answers (console pages, assets, tRPC): one label, not one per URL. */
export const NEXT_ROUTE = "next";
/** The route label of API paths no contract entry takes (answered 404 or 405). */
export const UNMATCHED_ROUTE = "unmatched";

// A client's id is kept when it is short and plain, so that it can be searched for in the logs
// without letting a client write arbitrary text into them; anything else gets a fresh UUID.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

const routes = new WeakMap<http.IncomingMessage, string>();
let httpLogger: HttpLogger | undefined;

/**
 * Observes one request at the production server's node:http front: its id (the client's
 * `x-request-id` when sane, else a new one) is echoed in the response; when the answer ends, one JSON
 * log line (request id, method, route pattern, status, duration; never a header, a key or a body)
 * and the request metrics by route pattern and status.
 */
export function observeRequest(incoming: http.IncomingMessage, outgoing: http.ServerResponse, route: string): void {
  routes.set(incoming, route);
  httpLogger ??= createHttpLogger();
  httpLogger(incoming, outgoing);
  const started = process.hrtime.bigint();
  outgoing.once("close", () => {
    const labels = { method: incoming.method ?? "", route, status: String(outgoing.statusCode) };
    const { requests, requestSeconds } = webMetrics();
    requests.inc(labels);
    requestSeconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  });
}

function createHttpLogger(): HttpLogger {
  const line = (request: http.IncomingMessage, response: http.ServerResponse, durationMs: unknown) => ({
    method: request.method,
    route: routes.get(request),
    status: response.statusCode,
    duration_ms: durationMs,
  });
  return pinoHttp({
    logger: webLogger(),
    genReqId: (request, response) => {
      const given = request.headers["x-request-id"];
      const id = typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID();
      response.setHeader("x-request-id", id);
      return id;
    },
    // Only the request id is bound to the per-request logger; the line's fields are chosen below,
    // so no header (Authorization), query or body can reach the log.
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: "request_id", responseTime: "duration_ms" },
    serializers: { req: () => undefined, res: () => undefined },
    customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? "error" : "info"),
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request failed",
    customSuccessObject: (request, response, logged: { duration_ms?: unknown }) => line(request, response, logged.duration_ms),
    // A 5xx or a connection closed before the answer ended; the error's message, never its stack.
    customErrorObject: (request, response, error, logged: { duration_ms?: unknown }) => ({
      ...line(request, response, logged.duration_ms),
      error: error.message,
    }),
  });
}
