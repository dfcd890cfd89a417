// The production server: Next.js behind a node:http front. Paths under /api go straight to the REST
// dispatcher (the REST contract's handlers, the same the Next catch-all route calls), which more than
// doubles their throughput over Next's full request pipeline (bench/RESULTS.md); every other path,
// and the console's /api/trpc and /api/admin/upload, are Next's.
import http from "node:http";
import path from "node:path";
import { Readable, type Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import next from "next";
import { dispatchRestRequest, isRestPath } from "./server/rest/dispatch-rest-request";

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? "0.0.0.0";
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const app = next({ dev: false, dir: webDir, port, hostname });
const handleWithNext = app.getRequestHandler();
await app.prepare();

// Longer URLs get 414 (decisions.md). Node's own header limit (16 KiB, URL included) would cut the
// connection before the URL could be read, so it is raised far enough to answer.
const MAX_URL_LENGTH = 8 * 1024;
const MAX_HEADER_SIZE = 256 * 1024;

const server = http.createServer({ maxHeaderSize: MAX_HEADER_SIZE }, (incoming, outgoing) => {
  const rawUrl = incoming.url ?? "/";
  if (rawUrl.length > MAX_URL_LENGTH) {
    sendDetail(outgoing, 414, "URI Too Long");
    return;
  }
  const url = requestUrl(rawUrl, incoming.headers.host);
  if (!url) {
    sendDetail(outgoing, 400, "Bad Request");
    return;
  }
  if (!isRestPath(url.pathname)) {
    void handleWithNext(incoming, outgoing);
    return;
  }
  dispatchRestRequest(toWebRequest(incoming, outgoing, url))
    .then((response) => sendWebResponse(response, outgoing))
    .catch((error: unknown) => {
      console.error("[svc] request failed", error);
      if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "application/json" });
      outgoing.end(JSON.stringify({ detail: "Internal server error" }));
    });
});
// Requests node:http refuses before they reach the handler (malformed, headers too large, too slow)
// still get a JSON answer, then the connection closes.
server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
  const [status, detail] = clientErrorAnswer(error.code);
  // A reset connection cannot take a response.
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  // Bytes after a request's declared body (a Content-Length shorter than the body) that do not parse
  // as a next request: the request in flight still gets its answer, then the connection closes.
  const answering = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (answering) {
    answering.shouldKeepAlive = false;
    if (answering.writableFinished) socket.end();
    else answering.once("finish", () => socket.end());
    return;
  }
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname, () => console.log(`[web] listening on http://${hostname}:${port}`));

/** Stops accepting, lets in-flight requests finish (10 s at most), exits 0. */
function shutdown(): void {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 10_000).unref();
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, shutdown);
// Under `svc start` an IPC channel links this process to its supervisor: when the supervisor dies
// (even by kill -9) the channel closes, and this process must not live on holding the port.
process.once("disconnect", shutdown);

function requestUrl(rawUrl: string, host: string | undefined): URL | null {
  try {
    return new URL(rawUrl, `http://${host ?? "localhost"}`);
  } catch {
    return null;
  }
}

function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, "Request Header Fields Too Large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout"];
  return [400, "Bad Request"];
}

function sendDetail(outgoing: http.ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  outgoing.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
  outgoing.end(body);
}

const FETCH_FORBIDDEN_METHODS = new Set(["TRACE"]);

function toWebRequest(incoming: http.IncomingMessage, outgoing: http.ServerResponse, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  // The fetch API refuses TRACE (new Request throws, and the client would wait for an
  // answer that never comes). No route takes it, and none takes OPTIONS either: asked as OPTIONS,
  // the dispatcher answers what it answers any method a path does not take (404, or 405 with Allow).
  const method = FETCH_FORBIDDEN_METHODS.has(incoming.method ?? "") ? "OPTIONS" : incoming.method;
  // A connection that closes before the answer is written means the client went away: the request's
  // signal aborts, and the operations that listen to it cancel their running statement.
  const disconnected = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) disconnected.abort();
  });
  return new Request(url, {
    signal: disconnected.signal,
    method,
    headers,
    body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : undefined,
    duplex: "half",
  } as RequestInit);
}

async function sendWebResponse(response: Response, outgoing: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const body = Buffer.from(await response.arrayBuffer());
  headers["content-length"] = String(body.byteLength);
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}
