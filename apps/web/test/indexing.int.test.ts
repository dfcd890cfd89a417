import { holdPairLocks } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import {
  ConnectorIndexingStatusResponseSchema,
  DocumentDetailSchema,
  SearchResponseSchema,
  type ConnectorIndexingStatusLite,
  type DocumentDetail,
} from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_DETAIL, useTestApp } from "./app";
import { createPairOverApi, ingestOverApi } from "./factories";
import { startTestWorker, type TestWorker } from "./worker";

// Everything here is indexed by a real pg-boss worker running on the test database, as in production:
// the tests only talk HTTP and wait for what a client would see.
const app = useTestApp();
const INGESTION = "/api/svc-api/ingestion";
const PAIRS = "/api/manage/admin/cc-pair";
let worker: TestWorker;

beforeAll(async () => {
  worker = await startTestWorker(app);
});
afterAll(async () => {
  await worker.stop();
});

async function setPairStatus(ccPairId: number, status: "PAUSED" | "ACTIVE"): Promise<void> {
  expect((await app.request("PATCH", `${PAIRS}/${ccPairId}`, { body: { status } })).status).toBe(200);
}

async function getDocument(id: string): Promise<DocumentDetail> {
  const response = await app.request("GET", `${INGESTION}/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return DocumentDetailSchema.parse(await response.json());
}

/** Waits until GET shows the document indexed at its current version, and returns that. */
async function waitUntilIndexed(id: string, timeoutMs = 20_000): Promise<DocumentDetail> {
  return waitFor(
    `${id} indexed at its current version`,
    async () => {
      const document = await getDocument(id);
      return document.indexing_status === "indexed" && document.indexed_version === document.current_version ? document : undefined;
    },
    { timeoutMs },
  );
}

async function searchIds(query: string, match: "any" | "all" = "any"): Promise<string[]> {
  const response = await app.request("POST", "/api/svc-api/search", { body: { query, match, limit: 100 } });
  expect(response.status).toBe(200);
  return SearchResponseSchema.parse(await response.json()).results.map((result) => result.document_id);
}

/** The document's chunk rows in the generation search reads. */
async function chunkRows(id: string): Promise<number[]> {
  const rows = await app.db.$queryRaw<{ chunk_index: number }[]>`
    SELECT chunk_index FROM document_chunk
    WHERE document_id = ${id} AND generation_id = (SELECT id FROM index_generation WHERE status = 'current')
    ORDER BY chunk_index`;
  return rows.map((row) => row.chunk_index);
}

async function listPair(name: string): Promise<ConnectorIndexingStatusLite> {
  const response = await app.request("POST", "/api/manage/admin/connector/indexing-status", { body: { name_filter: name } });
  expect(response.status).toBe(200);
  const rows = ConnectorIndexingStatusResponseSchema.parse(await response.json()).flatMap((group) => group.indexing_statuses);
  const row = rows.find((candidate): candidate is ConnectorIndexingStatusLite => "cc_pair_id" in candidate && candidate.name === name);
  if (!row) throw new Error(`${name} is not listed`);
  return row;
}

/** A text long enough for several chunks, marked with a word of its own. */
const longText = (marker: string) => `${marker} opens the page. ${"Filler words keep this section long enough. ".repeat(250)}`;

describe("a document indexed by the running worker, followed over HTTP", () => {
  it("is accepted, shown `indexing` while the worker writes it, then `indexed` and found by search", async () => {
    const ccPairId = await createPairOverApi(app, { name: "Lifecycle" });
    const lock = await holdPairLocks(app.db, [ccPairId]);
    try {
      await ingestOverApi(app, { id: "life-1", text: "The periwinkle procedure is reviewed yearly.", ccPairId });
      const accepted = await getDocument("life-1");
      expect(accepted).toMatchObject({ current_version: 1, indexed_version: null, chunk_count: null, indexed_at: null });
      expect(["queued", "indexing"]).toContain(accepted.indexing_status);
      await waitFor("the worker to take the document", async () =>
        (await getDocument("life-1")).indexing_status === "indexing" ? true : undefined,
      );
      expect(await searchIds("periwinkle")).toEqual([]);
    } finally {
      await lock.release();
    }
    expect(await waitUntilIndexed("life-1")).toMatchObject({ indexed_version: 1, chunk_count: 1, last_error: null });
    expect(await searchIds("periwinkle")).toEqual(["life-1"]);
  });

  it("ends a burst of 20 updates indexed at the last version, its chunk rows equal to chunk_count, only its text searchable", async () => {
    const ccPairId = await createPairOverApi(app, { name: "Burst" });
    await ingestOverApi(app, { id: "burst-1", text: longText("burstmark0"), ccPairId });
    for (let update = 1; update <= 20; update += 1) await ingestOverApi(app, { id: "burst-1", text: longText(`burstmark${update}`), ccPairId });

    const indexed = await waitUntilIndexed("burst-1");
    expect(indexed).toMatchObject({ current_version: 21, indexed_version: 21 });
    expect(indexed.sections[0]?.text).toContain("burstmark20");
    expect(indexed.chunk_count).toBeGreaterThan(1);
    const rows = await chunkRows("burst-1");
    expect(rows).toEqual(Array.from({ length: indexed.chunk_count ?? 0 }, (_, index) => index));
    expect(await searchIds("burstmark20")).toEqual(["burst-1"]);
    // Each earlier word as typed (`all`): `any` would match it to "burstmark20", one or two edits away.
    for (let update = 0; update < 20; update += 1) expect(await searchIds(`burstmark${update}`, "all")).toEqual([]);
  });

  it("ends 20 concurrent updates of one document indexed at the version stored, with that version's text", async () => {
    const markers = Array.from({ length: 20 }, (_, update) => `racemark${update}`);
    await Promise.all(markers.map((marker) => ingestOverApi(app, { id: "race-1", text: longText(marker) })));

    const indexed = await waitUntilIndexed("race-1");
    expect(indexed.current_version).toBe(20);
    const stored = markers.find((marker) => indexed.sections[0]?.text?.startsWith(`${marker} `));
    if (!stored) throw new Error("the stored text carries none of the markers");
    expect(await chunkRows("race-1")).toHaveLength(indexed.chunk_count ?? -1);
    expect(await searchIds(stored)).toEqual(["race-1"]);
    // Each other marker as typed (`all`): `any` would match it to the stored one, an edit or two away.
    for (const marker of markers.filter((other) => other !== stored)) expect(await searchIds(marker, "all")).toEqual([]);
  });
});

describe("pairs, attempts and deletion with the running worker", () => {
  it("holds a paused pair's documents queued and unsearchable until it is resumed", async () => {
    const ccPairId = await createPairOverApi(app, { name: "Paused then resumed" });
    await setPairStatus(ccPairId, "PAUSED");
    const ids = ["paused-1", "paused-2", "paused-3"];
    for (const id of ids) await ingestOverApi(app, { id, text: `The marigoldish clause of ${id}.`, ccPairId });
    // The worker has taken their jobs and left the documents waiting.
    await waitFor("the paused documents' jobs done", async () => {
      const [row] = await app.db.$queryRaw<{ done: number }[]>`
        SELECT count(*)::int AS done FROM pgboss.job
        WHERE name = 'index-document' AND state = 'completed' AND data->>'documentId' = ANY(${ids})`;
      return row?.done === ids.length ? true : undefined;
    });
    for (const id of ids) expect((await getDocument(id)).indexing_status).toBe("queued");
    expect(await searchIds("marigoldish")).toEqual([]);
    expect(await listPair("Paused then resumed")).toMatchObject({ cc_pair_status: "PAUSED", docs_indexed: 0, last_status: null });

    await setPairStatus(ccPairId, "ACTIVE");
    for (const id of ids) await waitUntilIndexed(id);
    expect((await searchIds("marigoldish")).sort()).toEqual(ids);
    expect(await listPair("Paused then resumed")).toMatchObject({
      cc_pair_status: "ACTIVE",
      docs_indexed: 3,
      in_progress: false,
      last_status: "success",
    });
  });

  it("moves a new pair from SCHEDULED to ACTIVE with successful attempts; a deletion leaves search and counts right", async () => {
    const ccPairId = await createPairOverApi(app, { name: "Scheduled pair" });
    expect(await listPair("Scheduled pair")).toMatchObject({ cc_pair_status: "SCHEDULED", last_status: null, docs_indexed: 0 });
    const ids = Array.from({ length: 5 }, (_, index) => `scheduled-${index}`);
    for (const id of ids) await ingestOverApi(app, { id, text: `The quokkalike memo ${id}.`, ccPairId });
    for (const id of ids) await waitUntilIndexed(id);
    await waitFor("the pair's attempt closed", async () => {
      const row = await listPair("Scheduled pair");
      return row.in_progress ? undefined : row;
    });
    expect(await listPair("Scheduled pair")).toMatchObject({
      cc_pair_status: "ACTIVE",
      docs_indexed: 5,
      last_status: "success",
      last_finished_status: "success",
      in_repeated_error_state: false,
    });
    const attempts = await app.db.indexAttempt.findMany({ where: { ccPairId }, select: { status: true, docsIndexed: true } });
    expect(attempts.every((attempt) => attempt.status === "success")).toBe(true);
    expect(attempts.reduce((sum, attempt) => sum + attempt.docsIndexed, 0)).toBe(5);

    expect((await app.request("DELETE", `${INGESTION}/scheduled-0`)).status).toBe(200);
    const gone = await app.request("GET", `${INGESTION}/scheduled-0`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual(ERROR_DETAIL);
    expect((await searchIds("quokkalike")).sort()).toEqual(ids.slice(1));
    expect(await listPair("Scheduled pair")).toMatchObject({ docs_indexed: 4 });
  });
});
