// The opt-in retry against a real HTTP server that answers 429/503 before it answers 200.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSvcClient, nextCursor, SvcApiError } from "../src/index";

let server: http.Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A server that answers the given statuses in turn (then 200s) and records the bodies it received. */
async function serverAnswering(answers: Array<{ status: number; retryAfter?: string }>) {
  const received: string[] = [];
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push(body);
      const answer = answers.shift();
      if (!answer) {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ document_id: "a", already_existed: false }));
        return;
      }
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (answer.retryAfter !== undefined) headers["retry-after"] = answer.retryAfter;
      response.writeHead(answer.status, headers).end(JSON.stringify({ detail: "later" }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/api`, received };
}

const DOCUMENT = { document: { semantic_identifier: "A", sections: [{ text: "a" }], metadata: {} } };

describe("retry", () => {
  it("is off by default: a 429 throws SvcApiError with its Retry-After", async () => {
    const { baseUrl, received } = await serverAnswering([{ status: 429, retryAfter: "7" }]);
    const failure = await createSvcClient({ baseUrl, apiKey: "k" })
      .ingest(DOCUMENT)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SvcApiError);
    expect(failure).toMatchObject({ status: 429, detail: "later", retryAfter: 7 });
    expect(received).toHaveLength(1);
  });

  it("sends the same body again after the Retry-After of a 429 and a 503, then answers the 200", async () => {
    const { baseUrl, received } = await serverAnswering([
      { status: 429, retryAfter: "1" },
      { status: 503, retryAfter: "0" },
    ]);
    const started = Date.now();
    const result = await createSvcClient({ baseUrl, apiKey: "k", retry: true }).ingest(DOCUMENT);
    expect(result).toEqual({ document_id: "a", already_existed: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(received).toEqual([JSON.stringify(DOCUMENT), JSON.stringify(DOCUMENT), JSON.stringify(DOCUMENT)]);
  });

  it("gives up after `retries`, and does not wait past maxDelaySeconds", async () => {
    const first = await serverAnswering([{ status: 503, retryAfter: "0" }, { status: 503, retryAfter: "0" }]);
    const failure = await createSvcClient({ baseUrl: first.baseUrl, apiKey: "k", retry: { retries: 1 } })
      .ingest(DOCUMENT)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 503 });
    expect(first.received).toHaveLength(2);
  });

  it("does not wait for a Retry-After longer than maxDelaySeconds", async () => {
    const { baseUrl, received } = await serverAnswering([{ status: 429, retryAfter: "3600" }]);
    const failure = await createSvcClient({ baseUrl, apiKey: "k", retry: { maxDelaySeconds: 5 } })
      .ingest(DOCUMENT)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 429, retryAfter: 3600 });
    expect(received).toHaveLength(1);
  });
});

describe("nextCursor", () => {
  it("reads the cursor of the rel=next link, and nothing from other links", () => {
    expect(nextCursor('<http://h/api/svc-api/ingestion?limit=2&cursor=YWJj>; rel="next"')).toBe("YWJj");
    expect(nextCursor('<http://h/a?cursor=x>; rel="prev", </a?limit=1&cursor=y>; rel=next')).toBe("y");
    expect(nextCursor(null)).toBeUndefined();
    expect(nextCursor('<http://h/a?cursor=x>; rel="prev"')).toBeUndefined();
  });
});
