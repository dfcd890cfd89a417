// What no client can make the production server do (issue 38; decisions.md "Limits and overload"):
// keep it busy with a huge search, answer a small body with a huge 422, search past the in-flight
// bound or the deadline, frame the console, 500 on a malformed path, or guess keys without limit.
import http from "node:http";
import net from "node:net";
import { createApiKey } from "@svc/core";
import { waitFor } from "@svc/db/testing";
import { FileUploadResponseSchema, MAX_BODY_VALIDATION_MS } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { PNG, uploadForm } from "./factories";
import { signInToConsole, useProductionServer, type ProductionApp } from "./production-server";

const SEARCH = "/api/svc-api/search";

/** What a loaded 2-core machine adds to a request beyond its validation: reading, parsing, answering. */
const VALIDATION_MARGIN_MS = 2_000;

const keyHeaders = (app: ProductionApp) => ({ authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" });

async function ingestBatch(app: ProductionApp, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${app.base}/api/svc-api/ingestion/batch`, { method: "POST", headers: keyHeaders(app), body });
  return { status: response.status, text: await response.text() };
}

const getDocument = (app: ProductionApp, id: string) =>
  fetch(`${app.base}/api/svc-api/ingestion/${encodeURIComponent(id)}`, { headers: keyHeaders(app) });

// ~2 kB, as bench/ingest sends them.
const NOTES = "Quarterly planning notes: the platform team ships the ingestion queue, the search team tunes ranking. ".repeat(18);
const validDocument = (id: string) => ({
  document: {
    id,
    semantic_identifier: `Planning notes ${id}`,
    sections: [{ text: NOTES, link: `https://wiki.example.com/notes/${id}` }],
    metadata: { team: "platform", tags: ["planning", "q3"] },
    doc_updated_at: "2026-11-01T09:00:00Z",
  },
});

/** A request from a chosen loopback address (the server sees it as the client's address). */
function requestFrom(
  app: ProductionApp,
  localAddress: string,
  { method = "GET", path, headers = {}, body }: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(app.base);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port: Number(port), localAddress, method, path, headers, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * Sends `raw` (then `body`, when given, in a write of its own) on a new connection and resolves with
 * everything the server answers until it closes.
 */
function rawExchange(app: ProductionApp, raw: string, body?: Buffer): Promise<string> {
  const { hostname, port } = new URL(app.base);
  return new Promise<string>((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("close", () => resolve(received));
    socket.on("error", () => undefined);
    socket.write(raw);
    if (body) socket.write(body);
  });
}

function search(app: ProductionApp, body: string): Promise<Response> {
  return fetch(`${app.base}${SEARCH}`, {
    method: "POST",
    headers: keyHeaders(app),
    body,
  });
}

/**
 * A search whose body stops halfway: it stays in flight until the socket closes or its deadline
 * passes. Sent with `Expect: 100-continue`, which the server answers once the request is admitted,
 * so when this resolves the request counts in flight. `answer` is what the server finally says.
 */
async function stalledSearch(app: ProductionApp): Promise<{ socket: net.Socket; answer: Promise<string>; sentAt: number }> {
  const { hostname, port } = new URL(app.base);
  const body = JSON.stringify({ query: "stalled" });
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.setEncoding("latin1");
  let received = "";
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk: string) => {
      received += chunk;
      if (received.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "").includes("\r\n\r\n")) resolve(received);
    });
    socket.on("close", () => resolve(received));
  });
  socket.on("error", () => undefined);
  socket.write(
    `POST ${SEARCH} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${app.adminKey}\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.length}\r\nexpect: 100-continue\r\n\r\n`,
  );
  await waitFor("the search's 100 Continue", () => Promise.resolve(received.startsWith("HTTP/1.1 100 ") ? true : undefined));
  socket.write(body.slice(0, 5));
  return { socket, answer, sentAt: Date.now() };
}

describe("bounded requests and answers", () => {
  const app = useProductionServer();

  it("answers a search of 200,000 pair ids with a 422 naming the limit, refused on its length", async () => {
    const ids = Array.from({ length: 200_000 }, (_, index) => index + 1);
    const body = JSON.stringify({ query: "anything", filters: { cc_pair_ids: ids } });
    const started = Date.now();
    const response = await search(app, body);
    const text = await response.text();
    // 70-480 ms on a quiet machine (the first request of a cold server), 1.5 s while the whole suite runs.
    expect(Date.now() - started).toBeLessThan(1_000 + VALIDATION_MARGIN_MS);
    expect(response.status).toBe(422);
    expect(text.length).toBeLessThan(2_000);
    expect(JSON.parse(text)).toEqual({
      detail: [
        {
          type: "too_long",
          loc: ["body", "filters", "cc_pair_ids"],
          msg: "List should have at most 1000 items after validation, not 200000",
          input: ids.slice(0, 10),
          ctx: { field_type: "List", max_length: 1000, actual_length: 200_000 },
        },
      ],
    });
  });

  it("answers a 1 MB body of 100,000 invalid sections with at most 64 kB: 100 items, then one counting the rest", async () => {
    const sections = Array.from({ length: 100_000 }, () => ({ link: 1 }));
    const body = JSON.stringify({ document: { id: "amplified", sections, source: "web", semantic_identifier: "s", metadata: {} } });
    expect(body.length).toBeGreaterThan(1_000_000);
    const response = await fetch(`${app.base}/api/svc-api/ingestion`, { method: "POST", headers: keyHeaders(app), body });
    const text = await response.text();
    expect(response.status).toBe(422);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
    const { detail } = JSON.parse(text) as { detail: Array<{ type: string; loc: unknown[]; msg: string; input: unknown; ctx?: unknown }> };
    expect(detail).toHaveLength(101);
    expect(detail[0]?.loc.slice(0, 4)).toEqual(["body", "document", "sections", 0]);
    expect(detail.slice(0, 100).every((item) => typeof item.type === "string" && typeof item.msg === "string" && "input" in item)).toBe(true);
    expect(detail.at(-1)).toMatchObject({ type: "too_many_errors", loc: [], ctx: { max_errors: 100 } });
  });

  it("answers 1,000 documents of 100 invalid sections with one 422 of at most 64 kB within the validation budget, storing nothing", async () => {
    // Validated item by item, this body took 18 s and answered 200 with 15 MB of per-item 422s.
    const sections = Array.from({ length: 100 }, () => ({ text: 1 }));
    const invalid = (index: number) => ({ document: { id: `amplified-${index}`, sections, semantic_identifier: "s", metadata: {} } });
    const documents = [validDocument("bounded-batch-valid"), ...Array.from({ length: 999 }, (_, index) => invalid(index + 1))];
    const body = JSON.stringify({ documents });
    expect(body.length).toBeGreaterThan(1_000_000);
    const started = Date.now();
    const { status, text } = await ingestBatch(app, body);
    const elapsed = Date.now() - started;
    console.info(`1,000 documents of 100 invalid sections (${body.length} bytes): ${status}, ${Buffer.byteLength(text)} bytes in ${elapsed} ms`);
    expect(status).toBe(422);
    expect(elapsed).toBeLessThan(MAX_BODY_VALIDATION_MS + VALIDATION_MARGIN_MS);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
    const { detail } = JSON.parse(text) as { detail: Array<{ type: string; loc: unknown[]; msg: string; ctx?: Record<string, unknown> }> };
    expect(detail).toHaveLength(101);
    expect(detail[0]?.loc.slice(0, 6)).toEqual(["body", "documents", 1, "document", "sections", 0]);
    const summary = detail.at(-1);
    expect(summary).toMatchObject({ type: "too_many_errors", loc: ["body", "documents"], ctx: { max_errors: 100, invalid_items: 2, unchecked_items: 997 } });
    expect(summary?.msg).toContain("Nothing was stored; fix the invalid documents or send fewer per request");
    expect((await getDocument(app, "bounded-batch-valid")).status).toBe(404);
  });

  it("still takes 1,000 valid documents of ~2 kB in one batch", async () => {
    const documents = Array.from({ length: 1_000 }, (_, index) => validDocument(`bounded-valid-${index}`));
    const started = Date.now();
    const { status, text } = await ingestBatch(app, JSON.stringify({ documents }));
    console.info(`1,000 valid documents: ${status} in ${Date.now() - started} ms`);
    expect(status).toBe(200);
    const { results } = JSON.parse(text) as { results: Array<{ document_id?: string }> };
    expect(results.map((result) => result.document_id)).toEqual(documents.map((document) => document.document.id));
  });

  it("refuses more than 100,000 sections in one request with a 413 before validating them, storing nothing; takes 100,000", async () => {
    const emptySections = (count: number) => Array.from({ length: count }, () => ({ text: "" }));
    const document = (id: string, sections: unknown[]) => ({ document: { id, sections, semantic_identifier: "s", metadata: {} } });
    // A million sections in one document validated in 1-2 s once warm, then its write ran past the statement timeout: 503 after 34 s.
    const million = emptySections(1_000_000);
    const many = emptySections(101);
    for (const [path, body, count] of [
      ["/api/svc-api/ingestion", JSON.stringify(document("many-sections", million)), "1,000,000"],
      ["/api/svc-api/ingestion/batch", JSON.stringify({ documents: [document("many-sections", million)] }), "1,000,000"],
      ["/api/svc-api/ingestion/batch", JSON.stringify({ documents: Array.from({ length: 1_000 }, (_, index) => document(`many-${index}`, many)) }), "101,000"],
    ] as const) {
      const started = Date.now();
      const response = await fetch(`${app.base}${path}`, { method: "POST", headers: keyHeaders(app), body });
      const elapsed = Date.now() - started;
      console.info(`${path}, ${count} sections: ${response.status} in ${elapsed} ms`);
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        detail: `This request holds ${count} sections; one request takes at most 100,000, its documents together. Nothing was stored; send fewer sections per request.`,
      });
      // Reading and parsing the body alone (12 MB): no validation, no write.
      expect(elapsed).toBeLessThan(VALIDATION_MARGIN_MS + 2_000);
    }
    expect((await getDocument(app, "many-sections")).status).toBe(404);
    expect((await getDocument(app, "many-0")).status).toBe(404);

    const atLimit = await fetch(`${app.base}/api/svc-api/ingestion`, {
      method: "POST",
      headers: keyHeaders(app),
      body: JSON.stringify(document("hundred-thousand-sections", emptySections(100_000))),
    });
    expect(atLimit.status).toBe(200);
    expect((await getDocument(app, "hundred-thousand-sections")).status).toBe(200);
  }, 60_000);

  it("puts the security headers on console pages and API answers; /api/docs keeps its own CSP", async () => {
    const answers = [
      await fetch(`${app.base}/admin/sign-in`),
      await fetch(`${app.base}/api/health`),
      await fetch(`${app.base}/api/no-such-route`),
      await fetch(`${app.base}/api/trpc/session.me`),
      await search(app, "{"),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 404, 200, 422]);
    for (const response of answers) {
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
    }
    expect(answers[0]?.headers.get("content-security-policy")).toContain("script-src 'self' 'unsafe-inline'");
    const docs = await fetch(`${app.base}/api/docs`);
    expect(docs.status).toBe(200);
    // The reference page's own policy wins (it also lets Scalar start its workers).
    expect(docs.headers.get("content-security-policy")).toContain("worker-src 'self' blob:");
    expect(docs.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");

    // An uploaded file keeps its sandbox (a Next.js route handler's own header), and is not framed either.
    const uploaded = await fetch(`${app.base}/api/user/file/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.adminKey}` },
      body: uploadForm(["framed.png", PNG]),
    });
    const [file] = FileUploadResponseSchema.parse(await uploaded.json()).user_files;
    const cookie = await signInToConsole(app.base, app.adminKey);
    const served = await fetch(`${app.base}/api/admin/files/${file?.file_id ?? ""}`, { headers: { cookie, "sec-fetch-site": "same-origin" } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
    expect(served.headers.get("x-frame-options")).toBe("DENY");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("puts the security headers on the answers node:http's parser refuses (a body framed twice, headers too large)", async () => {
    const { hostname } = new URL(app.base);
    const requests = [
      `POST ${SEARCH} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n{}`,
      `GET /api/health HTTP/1.1\r\nhost: ${hostname}\r\nx-filler: ${"a".repeat(300 * 1024)}\r\n\r\n`,
    ];
    const answers = await Promise.all(requests.map((raw) => rawExchange(app, raw)));
    expect(answers.map((answer) => answer.split("\r\n")[0])).toEqual(["HTTP/1.1 400 Bad Request", "HTTP/1.1 431 Request Header Fields Too Large"]);
    for (const answer of answers) {
      const head = answer.split("\r\n\r\n")[0]?.toLowerCase() ?? "";
      expect(head).toContain("content-security-policy: default-src 'self'");
      expect(head).toContain("frame-ancestors 'none'");
      expect(head).toContain("x-frame-options: deny");
      expect(head).toContain("x-content-type-options: nosniff");
      expect(head).toContain("referrer-policy: same-origin");
    }
  });

  it("gets its 401, 404 or 400 to a client still sending a 2 MB body the server never reads, every time", async () => {
    // Answered before the body is read, the connection used to close on unread bytes: the kernel's
    // reset made most such clients lose the answer (the REST property test found it).
    const { hostname } = new URL(app.base);
    const body = `{"status":"ACTIVE","extra_status":"${"h".repeat(2_000_000)}"}`;
    // A client writes its headers, then its body.
    const cases = [
      { path: "/api/manage/admin/cc-pair/1/status", auth: "", status: "401" },
      { path: "/api/manage/admin/no-such-route", auth: `authorization: Bearer ${app.adminKey}\r\n`, status: "404" },
      // A request line node:http's parser refuses (a space in the path): answered by svc's clientError handler.
      { path: "/api/manage/admin/cc-pair/ 1/status", auth: "", status: "400" },
    ];
    for (const { path, auth, status } of cases) {
      for (let round = 0; round < 10; round++) {
        const head = `PUT ${path} HTTP/1.1\r\nhost: ${hostname}\r\n${auth}content-type: */*\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`;
        const answer = await rawExchange(app, head, Buffer.from(body));
        expect(answer.split("\r\n")[0], `${path} ${status}, round ${round}`).toBe(`HTTP/1.1 ${status} ${http.STATUS_CODES[Number(status)]}`);
      }
    }
  });

  it("answers a request target that is not a path (`OPTIONS *`, `GET *`) with 400, not Next's 500", async () => {
    const { hostname } = new URL(app.base);
    for (const requestLine of ["OPTIONS * HTTP/1.1", "GET * HTTP/1.1"]) {
      const answer = await rawExchange(app, `${requestLine}\r\nhost: ${hostname}\r\nconnection: close\r\n\r\n`);
      expect(answer.split("\r\n")[0], requestLine).toBe("HTTP/1.1 400 Bad Request");
      expect(answer.split("\r\n\r\n")[1], requestLine).toBe(JSON.stringify({ detail: "Bad Request" }));
    }
  });

  it("answers a malformed percent-escape in any path with 400: JSON under /api, a plain page in the console", async () => {
    for (const path of ["/api/svc-api/ingestion/%ZZ", "/api/trpc/%ZZ", "/api/admin/files/%ZZ", "/api/svc-api/ingestion/bad%E0%A4", "/api/%"]) {
      const response = await fetch(`${app.base}${path}`, { headers: { authorization: `Bearer ${app.adminKey}` } });
      expect(response.status, path).toBe(400);
      expect(await response.json(), path).toEqual({ detail: "Malformed percent-encoding in the path" });
    }
    for (const path of ["/admin/documents/%ZZ", "/admin/%E0%A4%A", "/%"]) {
      const response = await fetch(`${app.base}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers.get("content-type"), path).toMatch(/^text\/plain/);
      expect(await response.text(), path).toBe("Bad Request: malformed percent-encoding in the path.");
    }
    // Well-formed escapes still reach their route.
    expect((await fetch(`${app.base}/api/svc-api/ingestion/a%2Fb`, { headers: { authorization: `Bearer ${app.adminKey}` } })).status).toBe(404);
  });
});

describe("searches under admission control and one deadline", () => {
  const app = useProductionServer({ env: { SVC_MAX_IN_FLIGHT: "2", SVC_SEARCH_TIMEOUT_MS: "3000", SVC_BODY_IDLE_TIMEOUT_MS: "30000" } });

  it("refuses a search with 429 and Retry-After while the in-flight bound is reached; a stalled body is cut at the search deadline with 408", async () => {
    const stalled = [await stalledSearch(app), await stalledSearch(app)];
    try {
      const refused = await search(app, JSON.stringify({ query: "refused" }));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toEqual({ detail: "Too many requests in flight; try again later" });
      // The console's search too (its tRPC call, alone or batched), before its session is looked at.
      for (const path of ["/api/trpc/documents.search", "/api/trpc/session.me,documents.search?batch=1"]) {
        const console = await fetch(`${app.base}${path}`);
        expect(console.status, path).toBe(429);
        expect(console.headers.get("retry-after"), path).toBe("1");
      }
      expect((await fetch(`${app.base}/api/trpc/session.me`)).status).toBe(200);
      // The deadline covers the body's reading too: each stalled search is answered once it passes
      // (3 s here), long before the body's idle timeout (30 s here).
      for (const { answer, sentAt } of stalled) {
        const text = await answer;
        expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 408 /);
        expect(text).toContain('{"detail":"Request body timed out"}');
        expect(Date.now() - sentAt).toBeLessThan(6_000);
      }
    } finally {
      for (const { socket } of stalled) socket.destroy();
    }
    await waitFor("a search admitted again", async () => ((await search(app, JSON.stringify({ query: "again" }))).status === 200 ? true : undefined));
  });
});

describe("throttled credential guessing", () => {
  const app = useProductionServer({ env: { SVC_CREDENTIAL_FAILURES_PER_MINUTE: "5" } });
  const wrongKey = { authorization: "Bearer svc_not-a-real-key" };

  it("refuses an address with 429 after 5 failed key checks in a minute; other addresses and keys in use are unaffected; metrics count it", async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await requestFrom(app, "127.0.0.1", { path: "/api/svc-api/ingestion", headers: wrongKey })).status).toBe(401);
    }
    const refused = await requestFrom(app, "127.0.0.1", { path: "/api/svc-api/ingestion", headers: wrongKey });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.text)).toEqual({ detail: "Too many failed key checks from this address; try again later" });
    // A key not resolved in the last minute is refused before it is looked at, so a right guess cannot be told from a wrong one.
    const unused = (await createApiKey({ db: app.database.db, name: "throttle unused", role: "admin" })).key;
    expect((await requestFrom(app, "127.0.0.1", { path: "/api/svc-api/ingestion", headers: { authorization: `Bearer ${unused}` } })).status).toBe(429);
    // A key in use (resolved in the last minute, from anywhere) still passes the throttled address.
    const admin = { authorization: `Bearer ${app.adminKey}` };
    expect((await requestFrom(app, "127.0.0.3", { path: "/api/svc-api/ingestion", headers: admin })).status).toBe(200);
    expect((await requestFrom(app, "127.0.0.1", { path: "/api/svc-api/ingestion", headers: admin })).status).toBe(200);
    // Routes that take no key still answer.
    expect((await requestFrom(app, "127.0.0.1", { path: "/api/health" })).status).toBe(200);

    // Another address: its own count, and a valid key is never slowed nor counted.
    expect((await requestFrom(app, "127.0.0.2", { path: "/api/svc-api/ingestion", headers: wrongKey })).status).toBe(401);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await requestFrom(app, "127.0.0.3", { path: "/api/svc-api/ingestion", headers: { authorization: `Bearer ${app.adminKey}` } })).status).toBe(200);
    }

    // The console's sign-in counts with them, and is refused for the address that used up its failures.
    const signIn = (from: string, apiKey: string) =>
      requestFrom(app, from, {
        method: "POST",
        path: "/api/trpc/session.signIn",
        headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
        body: JSON.stringify({ json: { apiKey } }),
      });
    expect((await signIn("127.0.0.1", app.adminKey)).status).toBe(429);
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await signIn("127.0.0.4", "svc_wrong")).status).toBe(401);
    const refusedSignIn = await signIn("127.0.0.4", "svc_wrong");
    expect(refusedSignIn.status).toBe(429);
    expect(Number(refusedSignIn.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refusedSignIn.text)).toMatchObject({ error: { json: { data: { code: "TOO_MANY_REQUESTS" } } } });
    expect((await signIn("127.0.0.5", app.adminKey)).status).toBe(200);

    const curator = (await createApiKey({ db: app.database.db, name: "throttle curator", role: "curator" })).key;
    expect((await requestFrom(app, "127.0.0.6", { path: "/api/svc-api/ingestion", headers: { authorization: `Bearer ${curator}` } })).status).toBe(200);
    const metrics = await requestFrom(app, "127.0.0.6", { path: "/api/metrics", headers: { authorization: `Bearer ${app.adminKey}` } });
    expect(metrics.text).toMatch(/^svc_credential_failures_total\{kind="bearer",component="web"\} 6$/m);
    expect(metrics.text).toMatch(/^svc_credential_failures_total\{kind="sign_in",component="web"\} 5$/m);
    expect(metrics.text).toMatch(/^svc_credential_throttled_total\{kind="bearer",component="web"\} 2$/m);
    expect(metrics.text).toMatch(/^svc_credential_throttled_total\{kind="sign_in",component="web"\} 2$/m);
  });
});
