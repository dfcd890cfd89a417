import { camelInput, IndexingStatusRequestSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { listIndexingStatus } from "../connectors/list-indexing-status";
import { deleteDocument } from "../documents/delete-document";
import { getDocument } from "../documents/get-document";
import { isAppError } from "../errors/app-error";
import { searchDocuments } from "../search/search-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, ingestAndIndexTestDocuments } from "../testing/factories";
import { cancelIndexRebuild } from "./cancel-index-rebuild";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { purgeIndexGeneration } from "./purge-index-generation";
import { runIndexRebuild } from "./run-index-rebuild";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "../testing/poison-chunks";
import { startIndexRebuild } from "../search-index/start-index-rebuild";

const queue = await useTestJobQueue();
const { db, boss } = queue;

/** About 1,400 cl100k tokens: three chunks at 512 tokens, a dozen at 128. */
const LONG_TEXT = Array.from(
  { length: 100 },
  (_, index) => `Sentence ${index} explains how the lighthouse keeper logs ships and weather in the harbour.`,
).join(" ");

/** Every word as typed (`match: "all"`): which generation holds which words, not near matches. */
async function search(query: string): Promise<string[]> {
  const { results } = await searchDocuments({
    db,
    index: testSearchIndex(),
    principal: OPERATOR_PRINCIPAL,
    request: { query, match: "all", limit: 100, filters: null, principal: null },
  });
  return results.map((result) => result.documentId).sort();
}

/** Chunks per generation of one document: `{ [generation_id]: count }`. */
async function chunksByGeneration(documentId: string): Promise<Record<number, number>> {
  const rows = await db.documentChunk.groupBy({ by: ["generationId"], where: { documentId }, _count: true });
  return Object.fromEntries(rows.map((row) => [row.generationId, row._count]));
}

/** How many rows a generation's index table holds for the document. */
async function indexRows(generationId: number, documentId: string): Promise<number> {
  const generation = await testSearchIndex().readable(generationId);
  if (generation === null) throw new Error(`no index table for generation ${generationId}`);
  return generation.table.countRows(`document_id = '${documentId}'`);
}

async function currentGenerationId(): Promise<number> {
  return (await getIndexRebuildStatus({ db })).current.generationId;
}

/** The listing row of one pair, for current or secondary attempts. */
async function listingRow(ccPairId: number, secondaryIndex: boolean, lastStatusFilters: string[] = []) {
  const groups = await listIndexingStatus({
    db,
    principal: OPERATOR_PRINCIPAL,
    request: camelInput(IndexingStatusRequestSchema).parse({ secondaryIndex, getAllConnectors: true, lastStatusFilters }),
  });
  return groups.flatMap((group) => group.indexingStatuses).find((row) => "ccPairId" in row && row.ccPairId === ccPairId);
}

describe("index rebuilds", () => {
  it("rebuilds every indexed document at a new chunk size; search reads the old generation until the swap", async () => {
    const ccPairId = await createTestPair(db);
    await ingestAndIndexTestDocuments(queue, [{ id: "size-1", text: LONG_TEXT, ccPairId }]);
    await ingestAndIndexTestDocuments(queue, [{ id: "size-2", text: LONG_TEXT, ccPairId }]);
    await ingestAndIndexTestDocuments(queue, [{ id: "size-3", text: `${LONG_TEXT} A quokka ends it.`, ccPairId }]);
    const before = await getDocument({ db, principal: OPERATOR_PRINCIPAL, documentId: "size-1" });
    const oldGeneration = await currentGenerationId();
    expect(before.chunkCount).toBe((await chunksByGeneration("size-1"))[oldGeneration]);

    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 128 });
    const building = started.rebuild;
    expect(started).toMatchObject({ status: "building", current: { generationId: oldGeneration, chunkTokenLimit: 512 } });
    expect(building).toMatchObject({ status: "building", chunkTokenLimit: 128, textSearchConfig: "english", docsDone: 0 });
    expect(building?.docsTotal).toBeGreaterThanOrEqual(3);
    // The job was queued with the generation.
    const [job] = await db.$queryRaw<{ data: unknown }[]>`SELECT data FROM pgboss.job WHERE name = 'rebuild-index'`;
    expect(job?.data).toEqual({ generationId: building?.generationId });

    // A second start while one is building: 409.
    await expect(startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL })).rejects.toSatisfy((error) => isAppError(error) && error.code === "CONFLICT");
    // Until the swap, search reads generation `oldGeneration`.
    expect(await search("lighthouse keeper")).toEqual(["size-1", "size-2", "size-3"]);

    const run = await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId: building?.generationId ?? 0, batchSize: 2 });
    expect(run).toMatchObject({ swapped: true, docsFailed: 0 });
    expect(run.docsDone).toBe(building?.docsTotal);

    const after = await getIndexRebuildStatus({ db });
    expect(after).toMatchObject({
      status: "idle",
      current: { generationId: building?.generationId, chunkTokenLimit: 128, textSearchConfig: "english" },
      rebuild: null,
      lastRebuild: { generationId: building?.generationId, status: "current", docsDone: run.docsDone, docsFailed: 0 },
    });
    expect(after.lastRebuild?.docsTotal).toBe(run.docsDone);
    expect(after.lastRebuild?.completedAt).not.toBeNull();
    // The swap told it, with the generation's counts (docs/decisions.md "Events").
    const [finished] = await db.$queryRaw<{ status: string; counts: unknown }[]>`
      SELECT status, counts FROM svc_event WHERE type = 'rebuild.finished' ORDER BY id DESC LIMIT 1`;
    expect(finished).toEqual({ status: "completed", counts: { docs_indexed: run.docsDone, docs_failed: 0 } });

    // Every chunk of the new generation fits 128 tokens (content; prefix and suffix are small here).
    const [largest] = await db.$queryRaw<{ largest: number }[]>`
      SELECT max(token_count)::int AS largest FROM document_chunk WHERE generation_id = ${building?.generationId}`;
    expect(largest?.largest).toBeLessThanOrEqual(128);
    const rebuilt = await getDocument({ db, principal: OPERATOR_PRINCIPAL, documentId: "size-1" });
    expect(rebuilt.chunkCount).toBe((await chunksByGeneration("size-1"))[building?.generationId ?? 0]);
    expect(rebuilt.chunkCount).toBeGreaterThan((before.chunkCount ?? 0) * 2);
    expect(await search("lighthouse keeper")).toEqual(["size-1", "size-2", "size-3"]);
    const { results } = await searchDocuments({
      db,
      index: testSearchIndex(),
      principal: OPERATOR_PRINCIPAL,
      request: { query: "quokka", limit: 10, filters: null, principal: null },
    });
    // The match is in the last of the new, smaller chunks.
    expect(results.map((result) => [result.documentId, result.chunks.map((chunk) => chunk.chunkIndex)])).toEqual([
      ["size-3", [(rebuilt.chunkCount ?? 0) - 1]],
    ]);

    // The retired generation's chunks are purged by the job the swap queued.
    const [purgeJob] = await db.$queryRaw<{ data: unknown }[]>`SELECT data FROM pgboss.job WHERE name = 'purge-index-generation'`;
    expect(purgeJob?.data).toEqual({ generationId: oldGeneration });
    const purged = await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: oldGeneration, batchSize: 2 });
    expect(purged.purged).toBe(true);
    expect(purged.chunksDeleted).toBeGreaterThanOrEqual(9);
    expect(await db.documentChunk.count({ where: { generationId: oldGeneration } })).toBe(0);
    expect(await chunksByGeneration("size-2")).toEqual({ [building?.generationId ?? 0]: rebuilt.chunkCount });

    // Running the job again finds nothing to do.
    expect(await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId: building?.generationId ?? 0 })).toEqual({
      swapped: false,
      docsDone: 0,
      docsFailed: 0,
    });
  });

  it("writes documents ingested or updated during the rebuild to both generations, and searches with the new configuration after the swap", async () => {
    const ccPairId = await createTestPair(db);
    await ingestAndIndexTestDocuments(queue, [{ id: "during-1", text: "The runners crossed the bridge at dawn.", ccPairId }]);
    await ingestAndIndexTestDocuments(queue, [{ id: "during-2", text: "Old wording about pelicans.", ccPairId }]);
    const oldGeneration = await currentGenerationId();

    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, textSearchConfig: "simple" });
    const newGeneration = started.rebuild?.generationId ?? 0;
    // The chunk size is kept when none is asked for.
    expect(started.rebuild).toMatchObject({ textSearchConfig: "simple", chunkTokenLimit: started.current.chunkTokenLimit });

    await ingestAndIndexTestDocuments(queue, [{ id: "during-2", text: "New wording about flamingos.", ccPairId }]);
    await ingestAndIndexTestDocuments(queue, [{ id: "during-3", text: "A document that arrived while the index was being rebuilt.", ccPairId }]);
    for (const id of ["during-2", "during-3"]) {
      expect(await chunksByGeneration(id)).toEqual({ [oldGeneration]: 1, [newGeneration]: 1 });
    }
    // English stemming still applies before the swap ("runner" finds "runners").
    expect(await search("runner")).toEqual(["during-1"]);
    expect(await search("flamingos")).toEqual(["during-2"]);

    await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId: newGeneration, batchSize: 3 });
    expect((await getIndexRebuildStatus({ db })).current).toMatchObject({ generationId: newGeneration, textSearchConfig: "simple" });
    // The simple configuration does not stem.
    expect(await search("runner")).toEqual([]);
    expect(await search("runners")).toEqual(["during-1"]);
    expect(await search("flamingos")).toEqual(["during-2"]);
    expect(await search("pelicans")).toEqual([]);
    expect(await search("arrived rebuilt")).toEqual(["during-3"]);

    await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: oldGeneration });
    const stale = await db.documentChunk.count({ where: { generation: { status: { not: "current" } } } });
    expect(stale).toBe(0);
  });

  it("shows the building generation's attempts with secondary_index, resumes from its cursor, and counts its attempts after the swap", async () => {
    const ccPairId = await createTestPair(db);
    const ids = ["resume-1", "resume-2", "resume-3", "resume-4"];
    await ingestAndIndexTestDocuments(
      queue,
      ids.map((id) => ({ id, text: `Resumable rebuild text ${id}`, ccPairId })),
    );
    expect(await listingRow(ccPairId, false)).toMatchObject({ lastStatus: "success", latestIndexAttemptDocsIndexed: 4 });
    // No rebuild: the secondary fields are null/false.
    expect(await listingRow(ccPairId, true)).toMatchObject({
      inProgress: false,
      inRepeatedErrorState: false,
      lastStatus: null,
      lastFinishedStatus: null,
      lastSuccess: null,
      latestIndexAttemptDocsIndexed: null,
      docsIndexed: 4,
    });

    // Only this test's documents are rebuilt: the others are deleted first.
    for (const { id } of await db.document.findMany({ where: { id: { notIn: ids } }, select: { id: true } })) {
      await deleteDocument({ index: testSearchIndex(), db, principal: OPERATOR_PRINCIPAL, documentId: id });
    }
    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
    const generationId = started.rebuild?.generationId ?? 0;
    // The second batch fails as a crash would (its claim of the cursor errors): the run stops after the first batch.
    await db.$executeRawUnsafe(`
      CREATE FUNCTION reject_resume_3() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.cursor_document_id = 'resume-4' AND NEW.id = ${generationId} THEN RAISE EXCEPTION 'disk on fire'; END IF;
        RETURN NEW;
      END $$`);
    await db.$executeRawUnsafe(
      `CREATE TRIGGER reject_resume_3 BEFORE UPDATE ON index_generation FOR EACH ROW EXECUTE FUNCTION reject_resume_3()`,
    );
    await expect(runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 2 })).rejects.toThrow(/disk on fire/);

    const halfway = await getIndexRebuildStatus({ db });
    expect(halfway.rebuild).toMatchObject({ status: "building", docsDone: 2, docsFailed: 0, docsTotal: 4 });
    expect(halfway.rebuild?.startedAt).not.toBeNull();
    expect(await search("resumable")).toEqual(ids);
    expect(await listingRow(ccPairId, true)).toMatchObject({
      inProgress: true,
      lastStatus: "in_progress",
      lastFinishedStatus: null,
      latestIndexAttemptDocsIndexed: 2,
    });
    expect(await listingRow(ccPairId, true, ["in_progress"])).toBeDefined();
    expect(await listingRow(ccPairId, true, ["success"])).toBeUndefined();
    // The current fields still show the indexing job's attempt.
    expect(await listingRow(ccPairId, false)).toMatchObject({ inProgress: false, lastStatus: "success", latestIndexAttemptDocsIndexed: 4 });
    expect(await listingRow(ccPairId, false, ["success"])).toBeDefined();

    // The retry resumes after the cursor: the first batch is neither rewritten nor counted again.
    const firstBatch = async () =>
      db.$queryRaw<{ xmin: string }[]>`
        SELECT xmin::text FROM document_chunk WHERE generation_id = ${generationId} AND document_id IN ('resume-1', 'resume-2')
        ORDER BY document_id`;
    const written = await firstBatch();
    await db.$executeRawUnsafe(`DROP TRIGGER reject_resume_3 ON index_generation`);
    const run = await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 2 });
    expect(run).toEqual({ swapped: true, docsDone: 2, docsFailed: 0 });
    expect(await firstBatch()).toEqual(written);
    expect((await getIndexRebuildStatus({ db })).lastRebuild).toMatchObject({ docsDone: 4, docsTotal: 4 });

    // The run that was cut off left its attempt `interrupted` (closed at its last batch); the run that
    // finished opened one of its own. After the swap both are the pair's latest attempts; the
    // secondary view is empty again.
    expect(await listingRow(ccPairId, false)).toMatchObject({
      inProgress: false,
      lastStatus: "success",
      lastFinishedStatus: "success",
      latestIndexAttemptDocsIndexed: 2,
    });
    const attempts = await db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" } });
    expect(attempts.map((attempt) => [attempt.generationId === generationId, attempt.status, attempt.docsIndexed])).toEqual([
      [false, "success", 4],
      [true, "interrupted", 2],
      [true, "success", 2],
    ]);
    expect(attempts[1]?.finishedAt).toEqual(attempts[1]?.lastActivityAt);
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } })).lastAttemptStatus).toBe("success");
    expect(await listingRow(ccPairId, true)).toMatchObject({ inProgress: false, lastStatus: null, latestIndexAttemptDocsIndexed: null });
  });

  it("cancels a rebuild: the generation stops, its attempts end canceled, its chunks go, the current index stays", async () => {
    const ccPairId = await createTestPair(db);
    await ingestAndIndexTestDocuments(queue, [{ id: "cancel-1", text: "A document that outlives a canceled rebuild.", ccPairId }]);
    const current = await currentGenerationId();
    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 256 });
    const generationId = started.rebuild?.generationId ?? 0;
    await ingestAndIndexTestDocuments(queue, [{ id: "cancel-2", text: "Written to both generations before the cancel.", ccPairId }]);
    expect(await chunksByGeneration("cancel-2")).toEqual({ [current]: 1, [generationId]: 1 });
    const before = await listingRow(ccPairId, false);
    const lastSuccess = before && "lastSuccess" in before ? before.lastSuccess : null;
    expect(lastSuccess).not.toBeNull();
    // One batch of the pass, so the pair has an open rebuild attempt when the cancel comes.
    await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 1_000, maxBatches: 1 });
    expect(await listingRow(ccPairId, true)).toMatchObject({ lastStatus: "in_progress" });

    const canceled = await cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
    expect(canceled).toMatchObject({
      status: "idle",
      current: { generationId: current },
      rebuild: null,
      lastRebuild: { generationId, status: "canceled", chunkTokenLimit: 256 },
    });
    await expect(cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL })).rejects.toSatisfy((error) => isAppError(error) && error.code === "NOT_FOUND");
    expect(await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId })).toEqual({ swapped: false, docsDone: 0, docsFailed: 0 });
    // The cut-short attempt reads canceled and is now the pair's latest; its last success stays.
    const attempts = await db.indexAttempt.findMany({ where: { generationId }, select: { ccPairId: true, status: true, finishedAt: true } });
    expect(attempts.filter((attempt) => attempt.ccPairId === ccPairId)).toEqual([{ ccPairId, status: "canceled", finishedAt: expect.any(Date) as unknown }]);
    expect(attempts.every((attempt) => attempt.status === "canceled")).toBe(true);
    expect(await listingRow(ccPairId, false)).toMatchObject({ lastStatus: "canceled", lastFinishedStatus: "canceled", lastSuccess: lastSuccess });
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } })).lastAttemptStatus).toBe("canceled");

    await ingestAndIndexTestDocuments(queue, [{ id: "cancel-3", text: "Only in the current generation.", ccPairId }]);
    expect(await chunksByGeneration("cancel-3")).toEqual({ [current]: 1 });
    await purgeIndexGeneration({ index: testSearchIndex(), db, generationId });
    expect(await db.documentChunk.count({ where: { generationId } })).toBe(0);
    expect(await search("canceled rebuild")).toEqual(["cancel-1"]);
    // Indexing after the cancel is a new attempt of the pair.
    expect(await listingRow(ccPairId, false)).toMatchObject({ lastStatus: "success" });
  });

  it("a document whose chunks the rebuild cannot write fails alone, and is failed once the generation is swapped in", async () => {
    const ccPairId = await createTestPair(db);
    const ids = ["unwritable-1", "unwritable-2", "unwritable-3"];
    await ingestAndIndexTestDocuments(queue, [
      { id: "unwritable-1", text: "Written by the rebuild.", ccPairId },
      { id: "unwritable-2", text: `Refused by the rebuild: ${POISON}.`, ccPairId },
      { id: "unwritable-3", text: "Also written by the rebuild.", ccPairId },
    ]);
    for (const { id } of await db.document.findMany({ where: { id: { notIn: ids } }, select: { id: true } })) {
      await deleteDocument({ index: testSearchIndex(), db, principal: OPERATOR_PRINCIPAL, documentId: id });
    }
    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
    const generationId = started.rebuild?.generationId ?? 0;
    // From now on PostgreSQL refuses the second document's chunks (indexed before, so still `indexed`).
    await installPoisonTrigger(db);
    try {
      expect(await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId })).toEqual({ swapped: true, docsDone: 2, docsFailed: 1 });
    } finally {
      await removePoisonTrigger(db);
    }
    expect((await getIndexRebuildStatus({ db })).lastRebuild).toMatchObject({ generationId, docsDone: 2, docsFailed: 1 });
    // Search no longer finds it, and it no longer reads as indexed.
    const documents = await db.document.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" }, select: { id: true, indexingStatus: true, lastError: true } });
    expect(documents.map((document) => [document.id, document.indexingStatus])).toEqual([
      ["unwritable-1", "indexed"],
      ["unwritable-2", "failed"],
      ["unwritable-3", "indexed"],
    ]);
    expect(documents[1]?.lastError).toContain("chunk rejected");
    expect((await chunksByGeneration("unwritable-2"))[generationId]).toBeUndefined();
    expect(await search("rebuild")).toEqual(["unwritable-1", "unwritable-3"]);
    const [attempt] = await db.indexAttempt.findMany({ where: { generationId, ccPairId } });
    expect(attempt).toMatchObject({ status: "completed_with_errors", docsIndexed: 2, docsFailed: 1 });
    expect(attempt?.errorMessage).toContain("chunk rejected");
    expect(await db.rebuildFailure.count()).toBe(0);
  });

  it("ends consistent when two runs of the job and indexing jobs run at the same time", async () => {
    const ccPairId = await createTestPair(db);
    const ids = Array.from({ length: 24 }, (_, index) => `concurrent-${String(index).padStart(2, "0")}`);
    const edition = (round: number) => ids.map((id) => ({ id, text: `Concurrent ${id} edition${round}`, ccPairId }));
    await ingestAndIndexTestDocuments(queue, edition(0));
    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 256 });
    const generationId = started.rebuild?.generationId ?? 0;

    const rewrite = async () => {
      for (const round of [1, 2, 3]) await ingestAndIndexTestDocuments(queue, edition(round));
    };
    const runs = await Promise.all([
      runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 3 }),
      runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 3 }),
      rewrite(),
    ]);
    // One run swapped; together they wrote each document once.
    expect(runs.slice(0, 2).filter((run) => run?.swapped)).toHaveLength(1);
    const status = await getIndexRebuildStatus({ db });
    expect(status.current.generationId).toBe(generationId);
    // Every document counted once, as done or (the earlier test's failed document) as failed.
    expect((status.lastRebuild?.docsDone ?? 0) + (status.lastRebuild?.docsFailed ?? 0)).toBe(started.rebuild?.docsTotal);

    await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: started.current.generationId });
    for (const id of ids) {
      expect(await chunksByGeneration(id)).toEqual({ [generationId]: 1 });
      expect(await indexRows(generationId, id)).toBe(1);
    }
    expect(await search("edition3")).toEqual(ids);
    expect(await search("edition0 | edition1 | edition2")).toEqual([]);
  });

  it("writes a batch again without doubling its rows when its transaction failed after the index write", async () => {
    const ccPairId = await createTestPair(db);
    const ids = ["unconfirmed-1", "unconfirmed-2"];
    await ingestAndIndexTestDocuments(queue, ids.map((id) => ({ id, text: `${LONG_TEXT} ${id}`, ccPairId })));
    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 128 });
    const generationId = started.rebuild?.generationId ?? 0;
    const intents = () => db.$queryRaw<{ document_id: string; writes: number }[]>`
      SELECT document_id, writes FROM index_write_intent WHERE document_id = ANY(${ids}::text[]) ORDER BY document_id`;

    // Every batch's index write goes through, then PostgreSQL refuses to count it (as a worker killed
    // between the two commits leaves it): the rows are in the table, the transaction is not.
    await db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_rebuild_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await db.$executeRawUnsafe(`
      CREATE TRIGGER refuse_rebuild_count BEFORE UPDATE ON index_generation FOR EACH ROW
      WHEN (NEW.docs_done > OLD.docs_done) EXECUTE FUNCTION refuse_rebuild_count()`);
    try {
      await expect(runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 500 })).rejects.toThrow();
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_rebuild_count ON index_generation`);
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_rebuild_count`);
    }
    const ahead = await Promise.all(ids.map((id) => indexRows(generationId, id)));
    expect(ahead.every((rows) => rows > 1)).toBe(true);
    expect(await intents()).toEqual(ids.map((id) => ({ document_id: id, writes: 1 })));

    expect(await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId, batchSize: 500 })).toMatchObject({ swapped: true });
    await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: started.current.generationId });
    for (const [i, id] of ids.entries()) {
      expect(await chunksByGeneration(id)).toEqual({ [generationId]: ahead[i] });
      expect(await indexRows(generationId, id)).toBe(ahead[i]);
    }
    expect(await intents()).toEqual([]);
  });

  it("refuses a text-search configuration the server does not have (422)", async () => {
    await expect(startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, textSearchConfig: "klingon" })).rejects.toSatisfy(
      (error) =>
        isAppError(error) &&
        error.code === "VALIDATION_FAILED" &&
        JSON.stringify(error.toResponseBody()).includes('"loc":["body","text_search_config"]'),
    );
    expect((await getIndexRebuildStatus({ db })).status).toBe("idle");
  });
});
