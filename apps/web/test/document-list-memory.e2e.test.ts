// The whole-list answer of GET /svc-api/ingestion and /svc-api/connector-docs/{id} is streamed: the
// production server's peak memory must not grow with the number of documents (docs/decisions.md
// "Per-document routes and document lists"). The 100,000 documents are inserted with one SQL statement each for speed (the
// ingestion path is not what is measured here); their long links make the answer ~110 MB, which a
// server that built the array in memory could not send without its peak growing by far more.
import { readFile } from "node:fs/promises";
import { createApiKey } from "@svc/core";
import { createTestPair } from "@svc/core/testing";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "./production-server";

const TOTAL = 100_000;
const WARM_UP = 5_000;
const LINK_PADDING = "x".repeat(1_000);
const MiB = 1024 * 1024;

let database: TestDatabase;
let server: ProductionServer;
let adminKey: string;
let pair: number;

beforeAll(async () => {
  database = await createTestDatabase();
  adminKey = (await createApiKey({ db: database.db, name: "memory", role: "admin" })).key;
  pair = await createTestPair(database.db, { name: "Bulk" });
  // V8 sizes its heap lazily: left alone, a process that makes 100 MB of short-lived garbage lets
  // its heap (and RSS) swell before collecting, whatever it keeps alive. Capping the old generation
  // below the answer's size measures what matters: a server that held the list would run out of
  // heap (and exit), one that streams keeps its peak where the warm-up left it. The young generation
  // is pinned for the same reason: V8 grows it with the allocation rate up to a size of its own
  // choosing (Node 24 on this machine: 128 MiB, four times Node 22's), a bounded growth that would
  // otherwise show here as the list's cost.
  server = await startProductionServer({
    databaseUrl: database.databaseUrl,
    env: { NODE_OPTIONS: "--max-old-space-size=96 --max-semi-space-size=16" },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

/** Inserts documents `bulk/<from>`…`bulk/<to - 1>` (zero-padded, so id order is number order), linked to the pair. */
async function insertDocuments(from: number, to: number): Promise<void> {
  await database.db.$executeRaw`
    INSERT INTO document (id, semantic_identifier, source, link, doc_updated_at, from_ingestion_api)
    SELECT 'bulk/' || lpad(i::text, 6, '0'), 'Document ' || i, 'ingestion_api'::"DocumentSource",
           'https://example.com/' || ${LINK_PADDING} || '/' || i, now(), true
    FROM generate_series(${from}::int, ${to - 1}::int) AS i`;
  await database.db.$executeRaw`
    INSERT INTO document_by_cc_pair (document_id, cc_pair_id)
    SELECT 'bulk/' || lpad(i::text, 6, '0'), ${pair}::int FROM generate_series(${from}::int, ${to - 1}::int) AS i`;
}

/** The server's peak resident set size so far (VmHWM), in bytes. */
async function peakRss(): Promise<number> {
  const status = await readFile(`/proc/${server.pid}/status`, "utf8");
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmHWM in /proc/${server.pid}/status`);
  return Number(kib) * 1024;
}

/**
 * Reads a whole-list answer chunk by chunk without keeping it: checks it is one JSON array of
 * `{"document_id","semantic_id","link"}` rows in id order, and returns the row count and byte size.
 */
async function readList(path: string): Promise<{ count: number; bytes: number; first?: string; last?: string }> {
  const response = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${adminKey}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(response.headers.get("link")).toBeNull();
  const row = /\{"document_id":"(bulk\/\d{6})","semantic_id":"Document \d+","link":"https:\/\/example\.com\/x{1000}\/\d+"\}/y;
  const decoder = new TextDecoder();
  let pending = "";
  let count = 0;
  let bytes = 0;
  let first: string | undefined;
  let last: string | undefined;
  let opened = false;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    pending += decoder.decode(chunk, { stream: true });
    if (!opened) {
      expect(pending[0]).toBe("[");
      pending = pending.slice(1);
      opened = true;
    }
    // Consume every complete row (each but the first preceded by a comma); keep the incomplete rest.
    for (;;) {
      let start = 0;
      if (count > 0) {
        if (pending[0] !== ",") break;
        start = 1;
      }
      row.lastIndex = start;
      const match = row.exec(pending);
      if (!match?.[1]) break;
      if (last !== undefined) expect(match[1] > last).toBe(true);
      first ??= match[1];
      last = match[1];
      count += 1;
      pending = pending.slice(row.lastIndex);
    }
    expect(pending.length).toBeLessThan(4096);
  }
  expect(pending).toBe("]");
  return { count, bytes, first, last };
}

describe("whole document lists", () => {
  it("stream 100,000 documents while the server's peak memory stays flat", async () => {
    await insertDocuments(0, WARM_UP);
    // Warm up both listings (code paths, connection pool, the heap's young generation) until the
    // peak holds still for two rounds in a row, and take that as the baseline: a freshly started
    // server's memory keeps climbing for a while after its first requests, and a baseline taken
    // mid-climb would count that climb as growth.
    let baseline = await peakRss();
    for (let round = 0, still = 0; still < 2; round += 1) {
      expect(round, "the warmed-up server's peak memory never settled").toBeLessThan(20);
      for (const path of ["/api/svc-api/ingestion", `/api/svc-api/connector-docs/${pair}`]) {
        expect(await readList(path)).toMatchObject({ count: WARM_UP, first: "bulk/000000", last: `bulk/${String(WARM_UP - 1).padStart(6, "0")}` });
      }
      const peak = await peakRss();
      still = peak === baseline ? still + 1 : 0;
      baseline = peak;
    }

    await insertDocuments(WARM_UP, TOTAL);
    for (const path of ["/api/svc-api/ingestion", `/api/svc-api/connector-docs/${pair}`]) {
      const list = await readList(path);
      expect(list).toMatchObject({ count: TOTAL, first: "bulk/000000", last: "bulk/099999" });
      expect(list.bytes).toBeGreaterThan(100 * MiB);
    }
    // A server that held the list would grow by well over the answer's ~110 MB (or die on the heap
    // cap); one that streams holds one batch of 1,000 rows (~1 MB) and its garbage.
    const growth = (await peakRss()) - baseline;
    expect(growth, `peak RSS grew by ${Math.round(growth / MiB)} MiB`).toBeLessThan(32 * MiB);
  }, 300_000);
});
