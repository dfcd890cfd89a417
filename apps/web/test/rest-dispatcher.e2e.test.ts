// The REST dispatcher's own answers over real HTTP, through the production server (dist/server.js):
// unknown paths, wrong methods, trailing slashes, long URLs, bodies that stop arriving, control
// characters in a path. Every one is JSON, never a 5xx, never Next's HTML.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { useProductionServer } from "./production-server";

const app = useProductionServer();

function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${app.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${app.adminKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The status and JSON body of a response, which must be JSON. */
async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return { status: response.status, body: await response.json() };
}

/** A raw HTTP/1.1 exchange: writes `request`, returns what the server sent before it closed the connection. */
function rawExchange(request: string, { timeoutMs }: { timeoutMs: number }): Promise<{ text: string; elapsedMs: number }> {
  const { hostname, port } = new URL(app.base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms; got: ${text}`));
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, elapsedMs: Date.now() - started });
    });
    socket.write(request);
  });
}

/** Status line and JSON body of a raw HTTP answer. */
function parseRaw(text: string): { status: number; body: unknown } {
  const [head = "", body = ""] = text.split("\r\n\r\n");
  expect(head).toMatch(/content-type: application\/json/i);
  return { status: Number(head.split(" ")[1]), body: JSON.parse(body) as unknown };
}

describe("the REST dispatcher over HTTP", () => {
  it("answers 404 {detail: Not Found} as JSON for a path under /api that no contract entry has", async () => {
    for (const [method, path] of [
      ["GET", "/api/no-such-route"],
      ["POST", "/api/svc-api/no-such-route"],
      ["GET", "/api"],
      ["GET", "/api/svc-api/ingestion/some-id/extra"],
      ["DELETE", "/api/manage/admin"],
    ] as const) {
      expect(await answer(await call(method, path)), `${method} ${path}`).toEqual({ status: 404, body: { detail: "Not Found" } });
    }
  });

  it("answers 405 {detail: Method Not Allowed} with the path's methods in Allow", async () => {
    const cases = [
      ["PUT", "/api/svc-api/ingestion", "POST, GET"],
      ["GET", "/api/svc-api/search", "POST"],
      ["DELETE", "/api/manage/admin/cc-pair", "POST"],
      ["POST", "/api/manage/admin/cc-pair/1", "GET, PATCH, DELETE"],
      ["PATCH", "/api/manage/admin/search-index/rebuild/", "GET, POST, DELETE"],
    ] as const;
    for (const [method, path, allow] of cases) {
      const response = await call(method, path);
      expect(response.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expect(await answer(response)).toEqual({ status: 405, body: { detail: "Method Not Allowed" } });
    }
  });

  it("answers TRACE, which the fetch API cannot carry, like any method a path does not take", async () => {
    const host = new URL(app.base).host;
    const trace = (path: string) => rawExchange(`TRACE ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, { timeoutMs: 10_000 });
    expect(parseRaw((await trace("/api/svc-api/ingestion")).text)).toEqual({ status: 405, body: { detail: "Method Not Allowed" } });
    expect(parseRaw((await trace("/api/no-such-route")).text)).toEqual({ status: 404, body: { detail: "Not Found" } });
  });

  it("accepts a trailing slash on every route", async () => {
    const listing = await answer(await call("POST", "/api/manage/admin/connector/indexing-status", {}));
    expect(listing.status).toBe(200);
    expect(await answer(await call("POST", "/api/manage/admin/connector/indexing-status/", {}))).toEqual(listing);
    expect((await call("GET", "/api/openapi.json/")).status).toBe(200);
    expect((await answer(await call("GET", "/api/svc-api/ingestion/"))).status).toBe(200);
    expect((await answer(await call("GET", "/api/manage/admin/search-index/rebuild/"))).status).toBe(200);
    const created = await answer(await call("POST", "/api/manage/admin/cc-pair/", { name: "Slash", source: "web", access_type: "public" }));
    expect(created.status).toBe(200);
    const { cc_pair_id: pairId } = created.body as { cc_pair_id: number };
    expect(await answer(await call("GET", `/api/manage/admin/cc-pair/${pairId}/`))).toMatchObject({ status: 200, body: { id: pairId, name: "Slash" } });
  });

  it("answers 414 {detail: URI Too Long} to a URL longer than 8 KiB, up to 100 kB and beyond", async () => {
    for (const length of [8 * 1024, 100_000]) {
      expect(await answer(await call("GET", `/api/svc-api/ingestion/${"a".repeat(length)}`)), String(length)).toEqual({
        status: 414,
        body: { detail: "URI Too Long" },
      });
    }
    expect(await answer(await call("GET", `/api/svc-api/ingestion?cursor=${"b".repeat(9000)}`))).toEqual({
      status: 414,
      body: { detail: "URI Too Long" },
    });
    // Just under the limit is an ordinary request.
    expect((await answer(await call("GET", `/api/svc-api/ingestion/${"a".repeat(8000)}`))).status).toBe(404);
  });

  it("times a body shorter than its Content-Length out within 10 s, with a JSON 408", async () => {
    const { host } = new URL(app.base);
    const partial = '{"query": "x"';
    const request =
      `POST /api/svc-api/search HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${app.adminKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n${partial}`;
    const { text, elapsedMs } = await rawExchange(request, { timeoutMs: 15_000 });
    expect(elapsedMs).toBeLessThan(10_000);
    expect(parseRaw(text)).toEqual({ status: 408, body: { detail: "Request body timed out" } });
    // The server is still fine afterwards.
    expect((await call("POST", "/api/svc-api/search", { query: "x" })).status).toBe(200);
  }, 20_000);

  it("never answers 5xx to control characters in a path segment or the query", async () => {
    const ingested = await call("POST", "/api/svc-api/ingestion", {
      document: { id: "ab", semantic_identifier: "A B", sections: [{ text: "x" }], metadata: {} },
    });
    expect(ingested.status).toBe(200);
    // A NUL in a path id is refused at its parameter (PostgreSQL text cannot hold it), never stripped
    // into another document's id.
    expect(await answer(await call("GET", "/api/svc-api/ingestion/a%00b"))).toMatchObject({
      status: 422,
      body: { detail: [expect.objectContaining({ loc: ["path", "document_id"] })] },
    });

    const paths = [
      "/api/svc-api/ingestion/%00",
      "/api/svc-api/ingestion/x%01%1F%7Fy",
      "/api/manage/admin/cc-pair/%00",
      "/api/manage/admin/cc-pair/1%00",
      "/api/manage/admin/federated-connector/%1B",
      "/api/svc-api/connector-docs/%00",
      "/api/svc-api/ingestion?cursor=%00",
      "/api/svc-api/ingestion?limit=%00",
      "/api/no-such/%00",
    ];
    for (const path of paths) {
      for (const method of ["GET", "DELETE"]) {
        const { status } = await answer(await call(method, path));
        expect(status, `${method} ${path}`).toBeLessThan(500);
      }
    }
    // A raw control character, which no client should send, is refused by the HTTP parser: still JSON.
    const { host } = new URL(app.base);
    const { text } = await rawExchange(`GET /api/svc-api/ingestion/a\u0001b HTTP/1.1\r\nHost: ${host}\r\n\r\n`, { timeoutMs: 10_000 });
    expect(parseRaw(text)).toEqual({ status: 400, body: { detail: "Bad Request" } });
  });

  it("leaves the console's paths and pages to Next.js", async () => {
    expect((await fetch(`${app.base}/api/trpc/keys.list`)).status).toBe(401);
    const upload = await fetch(`${app.base}/api/admin/upload`, { method: "POST", headers: { origin: app.base } });
    expect(upload.status).toBe(401);
    const page = await fetch(`${app.base}/admin/sign-in`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });
});
