// The production server: Next.js behind a node:http front. REST paths go straight to their route
// handlers (the same modules Next serves from app/api), which more than doubles their throughput
// over Next's full request pipeline (bench/RESULTS.md); every other path is Next's.
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import next from "next";
import { dispatchRestRoute, matchRestRoute } from "./lib/rest-routes";

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? "0.0.0.0";
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const app = next({ dev: false, dir: webDir, port, hostname });
const handleWithNext = app.getRequestHandler();
await app.prepare();

const server = http.createServer((incoming, outgoing) => {
  const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`);
  const route = matchRestRoute(url.pathname);
  if (!route) {
    void handleWithNext(incoming, outgoing);
    return;
  }
  dispatchRestRoute(route, toWebRequest(incoming, url))
    .then((response) => sendWebResponse(response, outgoing))
    .catch((error: unknown) => {
      console.error("[svc] request failed", error);
      if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "application/json" });
      outgoing.end(JSON.stringify({ detail: "Internal server error" }));
    });
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

function toWebRequest(incoming: http.IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  return new Request(url, {
    method: incoming.method,
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
