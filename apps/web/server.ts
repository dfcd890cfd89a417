// The production server: Next.js behind a node:http front. Paths under /api go straight to the REST
// dispatcher (the REST contract's handlers, the same the Next catch-all route calls), which more than
// doubles their throughput over Next's full request pipeline (bench/RESULTS.md); every other path,
// and the console's /api/trpc, /api/admin/upload and /api/admin/files, are Next's (a console page
// load once the database answers).
import { once } from "node:events";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { Readable, type Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { REST_CONTRACT, type HttpMethod, type RestEndpoint } from "@svc/schema";
import next from "next";
import { CLIENT_ADDRESS_HEADER } from "./server/credential-throttle";
import { checkDatabaseForPage, isConsolePageLoad, sendDatabaseUnavailablePage } from "./server/database-unavailable-page";
import { webEnv } from "./server/env";
import { hasMalformedEscape } from "./server/malformed-escape";
import { admitIncomingRequest, type Refusal } from "./server/rest/admit-request";
import { StreamedTextResponse } from "./server/rest/document-list-response";
import { EventStreamResponse } from "./server/rest/event-stream-response";
import { API_ROOT, dispatchRestRequest, isRestPath, matchRestPath } from "./server/rest/dispatch-rest-request";
import { NEXT_ROUTE, observeRequest, UNMATCHED_ROUTE } from "./server/observability/observe-request";
import { webLogger } from "./server/observability/web-logger";
import { addSecurityHeadersOnWrite, SECURITY_HEADERS } from "./server/security-headers";
import { getServices } from "./server/services";

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
// A connection must deliver its request's headers within this time (408), and the check runs every
// second instead of Node's 30 s, so sockets that never send a request cannot pile up under load.
const HEADERS_TIMEOUT_MS = 10_000;
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

const server = http.createServer({ maxHeaderSize: MAX_HEADER_SIZE, connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS }, (incoming, outgoing) =>
  handleRequest(incoming, outgoing, false),
);
// A client that sends `Expect: 100-continue` holds its body until told to send it. Node would say
// "100 Continue" before admission, and a refused client would upload its whole body for nothing; here
// the 100 goes out only once the request is admitted, so a refusal costs no body at all, and a
// client that got its 100 knows its request counts in flight.
server.on("checkContinue", (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => handleRequest(incoming, outgoing, true));

// An answer sent before the request's body was read (a 401, a 413 refused on its Content-Length)
// must reach a client that is still sending that body. Closing a socket with unread bytes makes the
// kernel reset the connection, and the reset can make the client's kernel drop the answer before it
// was read: 16 of 20 clients sending 2 MB to a route that answers 401 got no answer at all, and 19
// of 20 sending it after a malformed request line. So, as nginx's lingering close does, a connection
// that closes after its answer first sends its end, then reads and discards what the client still
// sends until the client closes, for LINGER_MS at most.
const LINGER_MS = 2_000;
server.on("connection", (socket: Socket) => {
  socket.destroySoon = function lingeringClose(this: Socket) {
    closeLingering(this);
  };
});

const lingering = new WeakSet<Duplex>();

/** Ends `socket` after `answer` (when given), then reads and drops what comes until the client closes, LINGER_MS at most. */
function closeLingering(socket: Duplex, answer?: string): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  if (socket.writable) socket.end(answer);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once("close", () => clearTimeout(timer));
  socket.once("end", () => socket.destroy());
  // A socket node:http gave up on (a malformed request) has no parser reading it any more.
  if (socket.listenerCount("data") === 0) socket.on("data", () => undefined);
  socket.resume();
}

function handleRequest(incoming: http.IncomingMessage, outgoing: http.ServerResponse, continueExpected: boolean): void {
  // Every answer carries them, whoever writes it; a handler's own value (the API reference's CSP) wins.
  addSecurityHeadersOnWrite(outgoing);
  // What is left of a body nobody read once the answer is out is read and dropped (the handler's web
  // stream of it would hold it paused), so the connection can close cleanly (lingeringClose).
  outgoing.once("finish", () => {
    if (incoming.complete) return;
    incoming.removeAllListeners("data");
    incoming.on("data", () => undefined);
    incoming.resume();
  });
  // The peer's address, for throttling credential guesses; a client cannot choose it.
  incoming.headers[CLIENT_ADDRESS_HEADER] = incoming.socket.remoteAddress ?? "unknown";
  const rawUrl = incoming.url ?? "/";
  const url = rawUrl.length > MAX_URL_LENGTH ? null : requestUrl(rawUrl, incoming.headers.host);
  const isRest = url !== null && isRestPath(url.pathname);
  const entry = isRest ? restEntry(incoming.method, url.pathname) : undefined;
  // Every request gets its id, one log line and its metrics, labelled with its route pattern.
  observeRequest(incoming, outgoing, entry ? `${API_ROOT}${entry.path}` : url && !isRest ? NEXT_ROUTE : UNMATCHED_ROUTE);
  if (rawUrl.length > MAX_URL_LENGTH) {
    sendDetail(outgoing, 414, "URI Too Long");
    return;
  }
  if (!url) {
    sendDetail(outgoing, 400, "Bad Request");
    return;
  }
  // The routes' own decoders would throw on it (Next answers 500): a malformed path is the client's fault.
  if (hasMalformedEscape(url.pathname)) {
    if (isApiPath(url.pathname)) sendDetail(outgoing, 400, "Malformed percent-encoding in the path");
    else sendPage(outgoing, 400, "Bad Request: malformed percent-encoding in the path.");
    return;
  }
  // The console's search is admitted as the REST search is; the rest of Next's paths are not.
  const admittedAs = isRest ? entry : consoleSearchEntry(url.pathname);
  if (!isRest && !admittedAs) {
    // A console page cannot render without its database: while it does not answer, a 503 with a
    // page that reloads itself, within the API's bound (decisions.md "Limits and overload").
    if (isConsolePageLoad(incoming.method, url.pathname, incoming.headers)) {
      void checkDatabaseForPage().then((unavailable) => {
        if (unavailable) sendDatabaseUnavailablePage(outgoing, unavailable);
        else passToNext(incoming, outgoing, continueExpected);
      });
      return;
    }
    passToNext(incoming, outgoing, continueExpected);
    return;
  }
  // Admission happens here, on the raw request, so a refusal costs no web Request, no body read and
  // no key check (issue 12: under overload the 429s themselves must stay cheap and quick).
  const admission = admitIncomingRequest(admittedAs);
  if ("refusal" in admission) {
    sendRefusal(outgoing, admission.refusal, continueExpected);
    return;
  }
  outgoing.once("close", admission.release);
  if (continueExpected) outgoing.writeContinue();
  if (!isRest) {
    void handleWithNext(incoming, outgoing);
    return;
  }
  dispatchRestRequest(toWebRequest(incoming, outgoing, url))
    .then((response) => {
      // An open event stream is bounded by SVC_MAX_EVENT_STREAMS, not by the in-flight limit: it
      // would hold its slot for hours (docs/decisions.md "Events").
      if (response instanceof EventStreamResponse) admission.release();
      return sendWebResponse(response, outgoing);
    })
    .catch((error: unknown) => {
      webLogger().error({ err: error }, "request failed");
      if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "application/json" });
      outgoing.end(JSON.stringify({ detail: "Internal server error" }));
    });
}
// Requests node:http refuses before they reach the handler (malformed, headers too large, too slow)
// still get a JSON answer, then the connection closes.
server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
  // node:http goes on parsing what a refused client still sends, and says so again: it was answered.
  if (lingering.has(socket)) return;
  const [status, detail] = clientErrorAnswer(error.code);
  // A reset connection cannot take a response.
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  // Bytes after a request's declared body (a Content-Length shorter than the body) that do not parse
  // as a next request: the request in flight still gets its answer, then the connection closes.
  const answering = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  // A request whose own body never arrived whole (the client went away mid-body) has no answer to
  // wait for: close at once, which also frees its in-flight slot and aborts its work.
  if (answering && !answering.req.complete) {
    socket.destroy();
    return;
  }
  if (answering) {
    answering.shouldKeepAlive = false;
    if (answering.writableFinished) closeLingering(socket);
    else answering.once("finish", () => closeLingering(socket));
    return;
  }
  const body = JSON.stringify({ detail });
  // Written raw, past handleRequest: the security headers every answer carries are added here.
  const securityHeaders = Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  closeLingering(
    socket,
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n${securityHeaders}` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = HEADERS_TIMEOUT_MS;
// Past this many open sockets Node closes new connections at once: every socket holds a parser and
// buffers, and an overloaded process must not grow without bound (the kernel's backlog waits instead).
server.maxConnections = webEnv().SVC_MAX_CONNECTIONS;
server.listen(port, hostname, () => webLogger().info({ url: `http://${hostname}:${port}` }, "listening"));

/** Stops accepting, lets in-flight requests finish (10 s at most), exits 0. */
function shutdown(): void {
  // Open event streams end now (a client reconnects elsewhere with its Last-Event-ID) rather than hold the exit.
  void getServices().then((services) => services.events.close(), () => undefined);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 10_000).unref();
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, shutdown);
// Under `svc start` an IPC channel links this process to its supervisor: when the supervisor dies
// (even by kill -9) the channel closes, and this process must not live on holding the port.
process.once("disconnect", shutdown);

function passToNext(incoming: http.IncomingMessage, outgoing: http.ServerResponse, continueExpected: boolean): void {
  if (continueExpected) outgoing.writeContinue();
  void handleWithNext(incoming, outgoing);
}

function requestUrl(rawUrl: string, host: string | undefined): URL | null {
  // Only origin-form (`/path`) and absolute-form targets name a resource; Next answers 500 to the
  // asterisk-form `OPTIONS *` that node:http lets through.
  if (!rawUrl.startsWith("/") && !/^https?:\/\//i.test(rawUrl)) return null;
  try {
    return new URL(rawUrl, `http://${host ?? "localhost"}`);
  } catch {
    return null;
  }
}

const TRPC_ROOT = "/api/trpc/";
const CONSOLE_SEARCH_PROCEDURE = "documents.search";

/** The REST search's entry for a tRPC call of the console's search (alone, or in a batch), if it is one. */
function consoleSearchEntry(pathname: string): RestEndpoint | undefined {
  if (!pathname.startsWith(TRPC_ROOT)) return undefined;
  const procedures = pathname.slice(TRPC_ROOT.length).split(",");
  return procedures.includes(CONSOLE_SEARCH_PROCEDURE) ? REST_CONTRACT.searchDocuments : undefined;
}

function isApiPath(pathname: string): boolean {
  return pathname === API_ROOT || pathname.startsWith(`${API_ROOT}/`);
}

/** A plain-text answer for the console's paths (a browser shows it as it is). */
function sendPage(outgoing: http.ServerResponse, status: number, text: string): void {
  outgoing.writeHead(status, { connection: "close", "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(text)) });
  outgoing.end(text);
}

function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, "Request Header Fields Too Large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout"];
  return [400, "Bad Request"];
}

/** The contract entry a method and path name, if any (the dispatcher answers 404/405 otherwise). */
function restEntry(method: string | undefined, pathname: string): RestEndpoint | undefined {
  const operationId = matchRestPath(pathname)?.operations[method as HttpMethod];
  return operationId ? REST_CONTRACT[operationId] : undefined;
}

function sendDetail(outgoing: http.ServerResponse, status: number, detail: string, headers: Record<string, string> = { connection: "close" }): void {
  const body = JSON.stringify({ detail });
  outgoing.writeHead(status, { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
  outgoing.end(body);
}

/**
 * A 429 that keeps the connection: once the answer is sent, node:http reads and discards the unread
 * body, so the client's next request can use the same socket. A client still waiting for its 100
 * Continue never sends that body (RFC 9110 10.1.1), so its connection closes after the answer.
 */
function sendRefusal(outgoing: http.ServerResponse, refusal: Refusal, bodyWithheld: boolean): void {
  const retryAfter = { "retry-after": String(refusal.retryAfterSeconds) };
  sendDetail(outgoing, refusal.status, refusal.detail, bodyWithheld ? { ...retryAfter, connection: "close" } : retryAfter);
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

/**
 * Sends a web Response. A body that is complete in its first chunk (every JSON answer) goes out with
 * a Content-Length; a longer stream (a whole document list) is written chunk by chunk, reading the
 * next chunk only once the socket has taken the last, so memory holds one chunk whatever the size.
 * A stream that fails after its 200 went out can only be cut off: the connection is destroyed, and
 * the client sees a truncated body rather than a complete-looking wrong one.
 */
async function sendWebResponse(response: Response, outgoing: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body) {
    outgoing.writeHead(response.status, { ...headers, "content-length": "0" });
    outgoing.end();
    return;
  }
  if (response instanceof StreamedTextResponse) {
    outgoing.writeHead(response.status, headers);
    await sendPieces(response.pieces, outgoing);
    return;
  }
  const reader = response.body.getReader();
  const first = await reader.read();
  const second = first.done ? first : await reader.read();
  if (second.done) {
    const body = first.done ? Buffer.alloc(0) : Buffer.from(first.value);
    outgoing.writeHead(response.status, { ...headers, "content-length": String(body.byteLength) });
    outgoing.end(body);
    return;
  }
  outgoing.writeHead(response.status, headers);
  // A client that goes away stops the stream (and the queries behind it).
  const closed = new Promise<void>((resolve) => outgoing.once("close", resolve));
  void closed.then(() => reader.cancel().catch(() => undefined));
  try {
    const pending = [first.value, second.value].filter((chunk) => chunk !== undefined);
    for (;;) {
      const chunk = pending.shift() ?? (await reader.read()).value;
      if (chunk === undefined || outgoing.destroyed) break;
      if (!outgoing.write(chunk)) await Promise.race([once(outgoing, "drain"), closed]);
    }
    outgoing.end();
  } catch (error) {
    webLogger().error({ err: error }, "response stream failed");
    outgoing.destroy();
  }
}

/**
 * Writes a streamed answer's pieces, taking the next only once the socket has taken the last. A
 * client that goes away stops the stream (and the queries behind it); a piece that fails cuts it off.
 */
async function sendPieces(pieces: AsyncIterable<string>, outgoing: http.ServerResponse): Promise<void> {
  const closed = new Promise<void>((resolve) => outgoing.once("close", resolve));
  try {
    for await (const piece of pieces) {
      if (outgoing.destroyed) break;
      if (!outgoing.write(piece)) await Promise.race([once(outgoing, "drain"), closed]);
    }
    outgoing.end();
  } catch (error) {
    webLogger().error({ err: error }, "response stream failed");
    outgoing.destroy();
  }
}
