import { indexDocuments, runIndexRebuild } from "@svc/core";
import { createTestPair, testSearchIndex } from "@svc/core/testing";
import {
  ConnectorIndexingStatusLiteSchema,
  ConnectorIndexingStatusResponseSchema,
  IndexRebuildStatusSchema,
  toWire,
  type Camel,
  type ConnectorIndexingStatusLite,
  type FederatedConnectorStatus,
} from "@svc/schema";
import { describe, expect, it } from "vitest";
import { getServices } from "../server/services";
import { useTestApp } from "./app";
import { ingestOverApi } from "./factories";
import { signedIn } from "./trpc/console";
import { installPoisonTrigger, POISON } from "./trpc/poison";

const app = useTestApp();
const REBUILD = "/api/manage/admin/search-index/rebuild";

/** The pair's row of the connector listing (POST …/indexing-status), as a client reads it. */
/** A console (camelCase) listing row as the REST listing spells it, to compare the two. */
function asWireRow(row: Camel<ConnectorIndexingStatusLite> | Camel<FederatedConnectorStatus> | undefined): unknown {
  return row && "ccPairId" in row ? toWire(ConnectorIndexingStatusLiteSchema, row) : row;
}

async function listingRow(ccPairId: number): Promise<ConnectorIndexingStatusLite> {
  const response = await app.request("POST", "/api/manage/admin/connector/indexing-status", { body: { get_all_connectors: true } });
  expect(response.status).toBe(200);
  const listing = ConnectorIndexingStatusResponseSchema.parse(await response.json());
  const row = listing
    .flatMap((group) => group.indexing_statuses)
    .find((candidate): candidate is ConnectorIndexingStatusLite => "cc_pair_id" in candidate && candidate.cc_pair_id === ccPairId);
  if (!row) throw new Error(`pair ${ccPairId} is not listed`);
  return row;
}

describe("an index rebuild carries failure truthfully", () => {
  it("counts documents that cannot be indexed as failed in its result and its attempts; they stay failed", async () => {
    await installPoisonTrigger(app.db);
    const mixed = await createTestPair(app.db, { name: "Mixed pair" });
    const failing = await createTestPair(app.db, { name: "Failing pair" });
    const clean = await createTestPair(app.db, { name: "Clean pair" });
    const documents = [
      { id: "mixed-ok-1", text: "Harbour tide tables.", ccPairId: mixed },
      { id: "mixed-ok-2", text: "Lighthouse keeper logs.", ccPairId: mixed },
      { id: "mixed-bad", text: `A ${POISON} in the mixed pair.`, ccPairId: mixed },
      { id: "failing-bad-1", text: `One ${POISON}.`, ccPairId: failing },
      { id: "failing-bad-2", text: `Two ${POISON}.`, ccPairId: failing },
      { id: "clean-ok", text: "Clean weather report.", ccPairId: clean },
    ];
    for (const document of documents) await ingestOverApi(app, document);
    const jobs = documents.map(({ id }) => ({ documentId: id, version: 1 }));
    await expect(indexDocuments({ index: testSearchIndex(), db: app.db, jobs })).rejects.toThrow();

    const before = { mixed: await listingRow(mixed), failing: await listingRow(failing), clean: await listingRow(clean) };
    expect(before.mixed).toMatchObject({ last_status: "completed_with_errors", docs_indexed: 2 });
    expect(before.failing).toMatchObject({ last_status: "failed", last_success: null, docs_indexed: 0 });
    expect(before.clean).toMatchObject({ last_status: "success", docs_indexed: 1 });

    // The rebuild, as an admin starts it over REST and the worker runs its job.
    const startResponse = await app.request("POST", REBUILD, { body: { chunk_token_limit: 256 } });
    expect(startResponse.status).toBe(202);
    const started = IndexRebuildStatusSchema.parse(await startResponse.json());
    // The failed documents are in the total the progress is measured against.
    expect(started.rebuild).toMatchObject({ docs_total: 6 });
    const { boss } = await getServices();
    const generationId = started.rebuild?.generation_id ?? 0;
    expect(await runIndexRebuild({ index: testSearchIndex(), db: app.db, boss, generationId })).toEqual({
      swapped: true,
      docsDone: 3,
      docsFailed: 3,
    });
    const status = IndexRebuildStatusSchema.parse(await (await app.request("GET", REBUILD)).json());
    expect(status.last_rebuild).toMatchObject({ generation_id: generationId, status: "current", docs_done: 3, docs_failed: 3, docs_total: 6 });

    // The documents that could not be indexed are still failed, with their error.
    const stored = await app.db.document.findMany({ orderBy: { id: "asc" }, select: { id: true, indexingStatus: true, lastError: true } });
    expect(stored.map((document) => [document.id, document.indexingStatus])).toEqual([
      ["clean-ok", "indexed"],
      ["failing-bad-1", "failed"],
      ["failing-bad-2", "failed"],
      ["mixed-bad", "failed"],
      ["mixed-ok-1", "indexed"],
      ["mixed-ok-2", "indexed"],
    ]);

    // Each pair's rebuild attempt counts its failed documents; the error state follows from the counts.
    const after = { mixed: await listingRow(mixed), failing: await listingRow(failing), clean: await listingRow(clean) };
    expect(after.mixed).toMatchObject({ last_status: "completed_with_errors", latest_index_attempt_docs_indexed: 2, docs_indexed: 2 });
    expect(after.failing).toMatchObject({ last_status: "failed", last_finished_status: "failed", last_success: null, docs_indexed: 0 });
    expect(after.clean).toMatchObject({ last_status: "success", latest_index_attempt_docs_indexed: 1 });
    // A rebuild's attempts do not move the last success: it is still the ingestion's.
    expect(after.mixed.last_success).toBe(before.mixed.last_success);
    expect(after.clean.last_success).toBe(before.clean.last_success);
    for (const row of Object.values(after)) expect(row.in_repeated_error_state).toBe(false);

    // The console reads the same: the listing, the attempts, the pair page's counts, the health page.
    const { caller } = await signedIn(app.adminKey);
    const consoleRows = (await caller.connectors.indexingStatus({ getAllConnectors: true })).flatMap((group) => group.indexingStatuses);
    for (const [ccPairId, row] of [
      [mixed, after.mixed],
      [failing, after.failing],
      [clean, after.clean],
    ] as const) {
      expect(asWireRow(consoleRows.find((candidate) => "ccPairId" in candidate && candidate.ccPairId === ccPairId))).toEqual(row);
    }
    // The rebuild's attempts are in each pair's history, marked as the rebuild's.
    const attemptsOf = async (ccPairId: number) =>
      (await caller.connectors.attempts({ ccPairId, limit: 10 })).map((attempt) => [attempt.status, attempt.docsIndexed, attempt.docsFailed, attempt.rebuild]);
    expect(await attemptsOf(mixed)).toEqual([
      ["completed_with_errors", 2, 1, true],
      ["completed_with_errors", 2, 1, false],
    ]);
    expect(await attemptsOf(failing)).toEqual([
      ["failed", 0, 2, true],
      ["failed", 0, 2, false],
    ]);
    expect(await attemptsOf(clean)).toEqual([
      ["success", 1, 0, true],
      ["success", 1, 0, false],
    ]);
    expect(await caller.connectors.indexingSummary({ ccPairId: mixed })).toEqual({
      inRepeatedErrorState: false,
      documents: { indexed: 2, queued: 0, failed: 1 },
    });
    expect(await caller.connectors.indexingSummary({ ccPairId: failing })).toEqual({
      inRepeatedErrorState: false,
      documents: { indexed: 0, queued: 0, failed: 2 },
    });
    const overview = await caller.health.overview();
    expect(overview.failedDocumentCount).toBe(3);
    expect(overview.rebuild).toMatchObject({
      status: "idle",
      current: { generationId, chunkTokenLimit: 256 },
      lastRebuild: { generationId, status: "current", docsDone: 3, docsFailed: 3 },
    });
  });

  it("leaves a pair's last success and its repeated error state as its ingestion left them", async () => {
    await installPoisonTrigger(app.db);
    const ccPairId = await createTestPair(app.db, { name: "Failing again and again" });
    // One document indexed (the last success), then five ingestion attempts that each fail one document.
    await ingestOverApi(app, { id: "again-ok", text: "Tide tables for the harbour.", ccPairId });
    await indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId: "again-ok", version: 1 }] });
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const documentId = `again-bad-${attempt}`;
      await ingestOverApi(app, { id: documentId, text: `Attempt ${attempt}: a ${POISON}.`, ccPairId });
      await expect(indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId, version: 1 }] })).rejects.toThrow();
    }
    const { caller } = await signedIn(app.adminKey);
    const consoleRow = async () =>
      asWireRow(
        (await caller.connectors.indexingStatus({ getAllConnectors: true }))
          .flatMap((group) => group.indexingStatuses)
          .find((candidate) => "ccPairId" in candidate && candidate.ccPairId === ccPairId),
      );
    const before = await listingRow(ccPairId);
    expect(before).toMatchObject({ last_status: "failed", in_repeated_error_state: true });
    expect(before.last_success).not.toBeNull();
    expect(await consoleRow()).toEqual(before);

    // The rebuild indexes the one good document again and carries the five failed ones: its attempt
    // for the pair is `completed_with_errors`, the pair's latest.
    const started = IndexRebuildStatusSchema.parse(await (await app.request("POST", REBUILD, { body: {} })).json());
    const { boss } = await getServices();
    const generationId = started.rebuild?.generation_id ?? 0;
    expect(await runIndexRebuild({ index: testSearchIndex(), db: app.db, boss, generationId })).toMatchObject({ swapped: true });

    const after = await listingRow(ccPairId);
    expect(after).toMatchObject({ last_status: "completed_with_errors", in_repeated_error_state: true, last_success: before.last_success });
    expect(await consoleRow()).toEqual(after);
    expect(await caller.connectors.indexingSummary({ ccPairId })).toMatchObject({ inRepeatedErrorState: true });
    const sorted = asWireRow(
      (await caller.connectors.indexingStatus({ getAllConnectors: true, sort: { column: "last_success", direction: "desc" } }))
        .flatMap((group) => group.indexingStatuses)
        .find((candidate) => "ccPairId" in candidate && candidate.ccPairId === ccPairId),
    );
    expect(sorted).toEqual(after);
    const history = await caller.connectors.attempts({ ccPairId, limit: 10 });
    expect(history.map((attempt) => [attempt.status, attempt.rebuild])).toEqual([
      ["completed_with_errors", true],
      ...Array.from({ length: 5 }, () => ["failed", false]),
      ["success", false],
    ]);
  });
});
