import { camelInput, IndexingStatusRequestSchema } from "@svc/schema";
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../auth/principal";
import { listIndexingStatus } from "../connectors/list-indexing-status";
import { updateCcPair } from "../connectors/update-cc-pair";
import { getPairIndexingSummary } from "../documents/get-pair-indexing-summary";
import { indexDocumentJob, type IndexDocumentPayload } from "../jobs/catalog";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { installPoisonTrigger, POISON } from "../testing/poison-chunks";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, ingestTestDocument } from "../testing/factories";
import { markDocumentsIndexing } from "./document-rows";
import { closeDrainedAttempts, endOrphanedAttempts, openTakenAttempts } from "./index-attempts";
import { indexDocuments } from "./index-documents";

const admin: Principal = { apiKeyId: 0, name: "test", role: "admin", scopeCcPairIds: null };
const queue = await useTestJobQueue();
const { db, boss } = queue;

beforeAll(async () => {
  await installPoisonTrigger(db);
});

/**
 * The pair's `in_repeated_error_state` as the listing reports it; the pair page's header (the same
 * rule, repeatedErrorStateSql) must say the same.
 */
async function inRepeatedErrorState(ccPairId: number): Promise<boolean> {
  const listing = await listIndexingStatus({ db, principal: admin, request: camelInput(IndexingStatusRequestSchema).parse({ getAllConnectors: true }) });
  const { inRepeatedErrorState: onPairPage } = await getPairIndexingSummary({ db, principal: admin, ccPairId });
  for (const group of listing) {
    for (const row of group.indexingStatuses) {
      if ("ccPairId" in row && row.ccPairId === ccPairId) {
        expect(onPairPage).toBe(row.inRepeatedErrorState);
        return row.inRepeatedErrorState;
      }
    }
  }
  throw new Error(`pair ${ccPairId} is not listed`);
}

async function attempts(ccPairId: number) {
  return db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" } });
}

async function pair(ccPairId: number) {
  return db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } });
}

describe("index attempts", () => {
  it("opens an attempt on the first document, counts documents and closes as success when drained", async () => {
    const ccPairId = await createTestPair(db);
    expect((await pair(ccPairId)).status).toBe("SCHEDULED");
    const first = await ingestTestDocument(queue, { id: "ok-1", text: "alpha text", ccPairId });
    const second = await ingestTestDocument(queue, { id: "ok-2", text: "beta text", ccPairId });

    await indexDocuments({ index: testSearchIndex(), db, jobs: [first] });
    const [open] = await attempts(ccPairId);
    expect(open).toMatchObject({ status: "in_progress", docsIndexed: 1, docsFailed: 0, finishedAt: null });
    expect(open?.startedAt).toBeInstanceOf(Date);
    expect((await pair(ccPairId)).status).toBe("ACTIVE");

    await indexDocuments({ index: testSearchIndex(), db, jobs: [second] });
    const all = await attempts(ccPairId);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ status: "success", docsIndexed: 2, docsFailed: 0 });
    expect(all[0]?.finishedAt).toBeInstanceOf(Date);

    // The next document opens a new attempt.
    await indexDocuments({ index: testSearchIndex(), db, jobs: [await ingestTestDocument(queue, { id: "ok-3", text: "gamma text", ccPairId })] });
    expect((await attempts(ccPairId)).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([
      ["success", 2],
      ["success", 1],
    ]);
  });

  it("marks a failing document failed, goes INITIAL_INDEXING then ACTIVE, and closes with errors", async () => {
    const ccPairId = await createTestPair(db);
    const bad = await ingestTestDocument(queue, { id: "mixed-bad", text: `${POISON} here`, ccPairId });
    const good = await ingestTestDocument(queue, { id: "mixed-good", text: "fine text", ccPairId });

    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [bad] })).rejects.toThrow(/chunk rejected/);
    expect(await db.document.findUniqueOrThrow({ where: { id: "mixed-bad" } })).toMatchObject({
      indexingStatus: "failed",
      indexAttempts: 1,
      lastError: expect.stringContaining("chunk rejected") as unknown,
    });
    expect(await attempts(ccPairId)).toMatchObject([{ status: "in_progress", docsIndexed: 0, docsFailed: 1 }]);
    expect((await pair(ccPairId)).status).toBe("INITIAL_INDEXING");

    await indexDocuments({ index: testSearchIndex(), db, jobs: [good] });
    expect(await attempts(ccPairId)).toMatchObject([{ status: "completed_with_errors", docsIndexed: 1, docsFailed: 1 }]);
    expect((await pair(ccPairId)).status).toBe("ACTIVE");
  });

  it("closes as failed when every document failed; a failing retry does not count twice", async () => {
    const ccPairId = await createTestPair(db);
    const bad = await ingestTestDocument(queue, { id: "all-bad", text: POISON, ccPairId });
    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [bad] })).rejects.toThrow();
    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [bad] })).rejects.toThrow();
    expect(await attempts(ccPairId)).toMatchObject([{ status: "failed", docsIndexed: 0, docsFailed: 1 }]);
    expect((await db.document.findUniqueOrThrow({ where: { id: "all-bad" } })).indexAttempts).toBe(2);
    expect((await pair(ccPairId)).status).toBe("INITIAL_INDEXING");
  });

  it("keeps the pair's last_attempt_status on its latest attempt through open and close", async () => {
    const ccPairId = await createTestPair(db);
    expect((await pair(ccPairId)).lastAttemptStatus).toBeNull();
    const bad = await ingestTestDocument(queue, { id: "last-bad", text: POISON, ccPairId });
    const good = await ingestTestDocument(queue, { id: "last-good", text: "fine text", ccPairId });

    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [bad] })).rejects.toThrow();
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("in_progress");
    await indexDocuments({ index: testSearchIndex(), db, jobs: [good] });
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("completed_with_errors");

    // A new attempt opens (in_progress), then closes as success.
    const next = await ingestTestDocument(queue, { id: "last-next", text: "more text", ccPairId });
    const later = await ingestTestDocument(queue, { id: "last-later", text: "even more text", ccPairId });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [next] });
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("in_progress");
    await indexDocuments({ index: testSearchIndex(), db, jobs: [later] });
    const all = await attempts(ccPairId);
    expect(all.map((attempt) => attempt.status)).toEqual(["completed_with_errors", "success"]);
    expect((await pair(ccPairId)).lastAttemptStatus).toBe(all.at(-1)?.status);
  });

  it("indexes the other documents of a batch before throwing for the failed one", async () => {
    const ccPairId = await createTestPair(db);
    const first = await ingestTestDocument(queue, { id: "batch-a", text: "fine", ccPairId });
    const bad = await ingestTestDocument(queue, { id: "batch-bad", text: POISON, ccPairId });
    const good = await ingestTestDocument(queue, { id: "batch-good", text: "fine", ccPairId });
    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [first, bad, good] })).rejects.toThrow("chunk rejected");
    const documents = await db.document.findMany({
      where: { id: { in: ["batch-a", "batch-bad", "batch-good"] } },
      orderBy: { id: "asc" },
      select: { id: true, indexingStatus: true, indexAttempts: true, lastError: true, chunkCount: true },
    });
    expect(documents).toEqual([
      { id: "batch-a", indexingStatus: "indexed", indexAttempts: 0, lastError: null, chunkCount: 1 },
      { id: "batch-bad", indexingStatus: "failed", indexAttempts: 1, lastError: "chunk rejected", chunkCount: null },
      { id: "batch-good", indexingStatus: "indexed", indexAttempts: 0, lastError: null, chunkCount: 1 },
    ]);
    expect(await db.documentChunk.count({ where: { documentId: { in: ["batch-a", "batch-bad", "batch-good"] } } })).toBe(2);
    expect(await attempts(ccPairId)).toMatchObject([{ status: "completed_with_errors", docsIndexed: 2, docsFailed: 1 }]);
    expect((await pair(ccPairId)).docsIndexed).toBe(2);
  });

  it("counts a batch spread over several pairs once in each pair's attempt", async () => {
    const [one, two] = [await createTestPair(db), await createTestPair(db)];
    const jobs = [
      await ingestTestDocument(queue, { id: "spread-1", text: "alpha", ccPairId: one }),
      await ingestTestDocument(queue, { id: "spread-2", text: "beta", ccPairId: two }),
      await ingestTestDocument(queue, { id: "spread-3", text: "gamma", ccPairId: one }),
      await ingestTestDocument(queue, { id: "spread-4", text: "delta", ccPairId: two }),
      await ingestTestDocument(queue, { id: "spread-5", text: "epsilon", ccPairId: one }),
    ];
    await indexDocuments({ index: testSearchIndex(), db, jobs });
    expect(await attempts(one)).toMatchObject([{ status: "success", docsIndexed: 3, docsFailed: 0 }]);
    expect(await attempts(two)).toMatchObject([{ status: "success", docsIndexed: 2, docsFailed: 0 }]);
    expect((await pair(one)).docsIndexed).toBe(3);
    expect((await pair(two)).docsIndexed).toBe(2);
  });

  it("is in a repeated error state after five failed attempts, cleared by a success", async () => {
    const ccPairId = await createTestPair(db);
    for (let i = 0; i < 5; i += 1) {
      expect(await inRepeatedErrorState(ccPairId)).toBe(false);
      await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [await ingestTestDocument(queue, { id: `rep-${i}`, text: POISON, ccPairId })] })).rejects.toThrow();
    }
    expect((await attempts(ccPairId)).map((attempt) => attempt.status)).toEqual(Array(5).fill("failed"));
    expect(await inRepeatedErrorState(ccPairId)).toBe(true);

    await indexDocuments({ index: testSearchIndex(), db, jobs: [await ingestTestDocument(queue, { id: "rep-ok", text: "healthy", ccPairId })] });
    expect((await attempts(ccPairId)).at(-1)?.status).toBe("success");
    expect(await inRepeatedErrorState(ccPairId)).toBe(false);
    expect(await pair(ccPairId)).toMatchObject({ status: "ACTIVE" });
  });

  it("leaves a paused pair's documents queued, and resuming sends them to be indexed", async () => {
    const ccPairId = await createTestPair(db);
    await updateCcPair({ db, boss, principal: admin, ccPairId, status: "PAUSED" });
    const job = await ingestTestDocument(queue, { id: "paused-1", text: "waiting text", ccPairId });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [job] });
    expect((await db.document.findUniqueOrThrow({ where: { id: "paused-1" } })).indexingStatus).toBe("queued");
    expect(await attempts(ccPairId)).toEqual([]);

    // Drop the ingestion's job, so the one fetched next is the job resuming sent.
    await boss.deleteQueuedJobs(indexDocumentJob.name);
    await updateCcPair({ db, boss, principal: admin, ccPairId, status: "ACTIVE" });
    const sent = await boss.fetch<IndexDocumentPayload>(indexDocumentJob.name, { batchSize: 100 });
    expect(sent.map((received) => received.data)).toEqual([job]);
    await boss.complete(indexDocumentJob.name, sent.map((received) => received.id));

    await indexDocuments({ index: testSearchIndex(), db, jobs: [job] });
    expect((await db.document.findUniqueOrThrow({ where: { id: "paused-1" } })).indexingStatus).toBe("indexed");
    expect(await attempts(ccPairId)).toMatchObject([{ status: "success", docsIndexed: 1 }]);
    expect((await pair(ccPairId)).status).toBe("ACTIVE");
  });

  it("opens one attempt when two workers index documents of one pair at once", async () => {
    const ccPairId = await createTestPair(db);
    const jobs: IndexDocumentPayload[] = [];
    for (let i = 0; i < 20; i += 1) jobs.push(await ingestTestDocument(queue, { id: `conc-${i}`, text: `text number ${i}`, ccPairId }));
    await Promise.all([
      indexDocuments({ index: testSearchIndex(), db, jobs: jobs.filter((_, i) => i % 2 === 0) }),
      indexDocuments({ index: testSearchIndex(), db, jobs: jobs.filter((_, i) => i % 2 === 1) }),
    ]);
    expect(await attempts(ccPairId)).toMatchObject([{ status: "success", docsIndexed: 20, docsFailed: 0 }]);
  });
});

describe("index attempts over a quiet period", () => {
  const window = { quietSeconds: 60 };

  /** Moves the pair's latest attempt's last activity (and a closed one's end) into the past, as if the pair had been quiet that long. */
  async function quietFor(ccPairId: number, seconds: number): Promise<void> {
    await db.$executeRaw`
      UPDATE index_attempt SET last_activity_at = now() - make_interval(secs => ${seconds}),
        finished_at = CASE WHEN finished_at IS NULL THEN NULL ELSE now() - make_interval(secs => ${seconds}) END
      WHERE id = (SELECT max(id) FROM index_attempt WHERE cc_pair_id = ${ccPairId})`;
  }

  async function push(ccPairId: number, id: string, text = "pushed text"): Promise<void> {
    const job = await ingestTestDocument(queue, { id, text, ccPairId });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [job], attemptWindow: window }).catch(() => undefined);
  }

  it("keeps one attempt through a steady push stream, counting its failures, closed whenever the queue drains", async () => {
    const ccPairId = await createTestPair(db);
    // A push every ~1.2 s for 30 s: each one drains the queue, none comes after a quiet period.
    for (let index = 0; index < 25; index += 1) {
      await push(ccPairId, `stream-${index}`, index % 10 === 3 ? `${POISON} ${index}` : `pushed ${index}`);
      // Nothing of the pair is left to index: the attempt reads closed, not in progress.
      expect((await pair(ccPairId)).lastAttemptStatus).not.toBe("in_progress");
      await quietFor(ccPairId, 1.2);
    }
    const [closed, ...others] = await attempts(ccPairId);
    expect(others).toEqual([]);
    expect(closed).toMatchObject({ status: "completed_with_errors", docsIndexed: 22, docsFailed: 3 });
    // It ended with its last document.
    expect(closed?.finishedAt).toEqual(closed?.lastActivityAt);
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("completed_with_errors");
    expect(await inRepeatedErrorState(ccPairId)).toBe(false);
  });

  it("reads in progress while the pair's documents are queued or taken up, and a document within the period reopens the same attempt", async () => {
    const ccPairId = await createTestPair(db);
    const first = await ingestTestDocument(queue, { id: "reopen-1", text: "first text", ccPairId });
    const second = await ingestTestDocument(queue, { id: "reopen-2", text: "second text", ccPairId });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [first], attemptWindow: window });
    // reopen-2 is still queued.
    const [open] = await attempts(ccPairId);
    expect(open).toMatchObject({ status: "in_progress", docsIndexed: 1, finishedAt: null });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [second], attemptWindow: window });
    const [drained] = await attempts(ccPairId);
    expect(drained).toMatchObject({ id: open?.id, status: "success", docsIndexed: 2 });
    expect(drained?.finishedAt).toEqual(drained?.lastActivityAt);
    await quietFor(ccPairId, 5);

    // A third document, 5 s later: taken up by the worker, it reopens the attempt before it is indexed.
    const third = await ingestTestDocument(queue, { id: "reopen-3", text: "third text", ccPairId });
    await openTakenAttempts(db, await markDocumentsIndexing({ db, jobs: [third] }), window);
    expect(await attempts(ccPairId)).toMatchObject([{ id: open?.id, status: "in_progress", docsIndexed: 2, finishedAt: null }]);
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("in_progress");
    await indexDocuments({ index: testSearchIndex(), db, jobs: [third], attemptWindow: window });
    const [reclosed, ...others] = await attempts(ccPairId);
    expect(others).toEqual([]);
    expect(reclosed).toMatchObject({ id: open?.id, status: "success", docsIndexed: 3, docsFailed: 0 });
    expect(reclosed?.startedAt).toEqual(open?.startedAt);
    expect(reclosed?.finishedAt?.getTime()).toBeGreaterThan(drained!.finishedAt!.getTime());
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("success");
  });

  it("starts a new attempt for a document that comes after the quiet period", async () => {
    const ccPairId = await createTestPair(db);
    await push(ccPairId, "burst-1");
    await push(ccPairId, "burst-2");
    await quietFor(ccPairId, 90);
    await push(ccPairId, "burst-3");
    expect((await attempts(ccPairId)).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([
      ["success", 2],
      ["success", 1],
    ]);
  });

  it("closes a pair's attempt when it is paused, and its documents after the resume reopen it", async () => {
    const ccPairId = await createTestPair(db);
    const first = await ingestTestDocument(queue, { id: "pause-1", text: "first text", ccPairId });
    const second = await ingestTestDocument(queue, { id: "pause-2", text: "second text", ccPairId });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [first], attemptWindow: window });
    expect(await attempts(ccPairId)).toMatchObject([{ status: "in_progress", docsIndexed: 1 }]);

    // pause-2 waits for the resume: nothing of the pair is being indexed.
    await updateCcPair({ db, boss, principal: admin, ccPairId, status: "PAUSED" });
    expect(await attempts(ccPairId)).toMatchObject([{ status: "success", docsIndexed: 1 }]);
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("success");

    await updateCcPair({ db, boss, principal: admin, ccPairId, status: "ACTIVE" });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [second], attemptWindow: window });
    expect((await attempts(ccPairId)).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([["success", 2]]);
  });

  it("never reopens an interrupted attempt", async () => {
    const ccPairId = await createTestPair(db);
    const job = await ingestTestDocument(queue, { id: "cut-1", text: "cut text", ccPairId });
    await openTakenAttempts(db, await markDocumentsIndexing({ db, jobs: [job] }), window);
    // The last worker stops with the document taken up: the attempt was cut off.
    expect(await endOrphanedAttempts(db)).toEqual({ closed: 0, interrupted: 1 });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [job], attemptWindow: window });
    expect((await attempts(ccPairId)).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([
      ["interrupted", 0],
      ["success", 1],
    ]);
  });

  it("sweeps up an open attempt whose pair has nothing left to index, and leaves one with documents pending", async () => {
    const ccPairId = await createTestPair(db);
    await push(ccPairId, "swept-1");
    const job = await ingestTestDocument(queue, { id: "swept-2", text: "taken text", ccPairId });
    await openTakenAttempts(db, await markDocumentsIndexing({ db, jobs: [job] }), window);
    expect(await closeDrainedAttempts(db)).toBe(0);
    expect(await attempts(ccPairId)).toMatchObject([{ status: "in_progress", docsIndexed: 1 }]);

    // The document leaves `indexing` without a transaction that closes the attempt (as attempts an
    // earlier release kept open through a quiet period were left).
    await db.document.update({ where: { id: "swept-2" }, data: { indexingStatus: "indexed" } });
    const lastActivity = (await attempts(ccPairId))[0]?.lastActivityAt;
    expect(await closeDrainedAttempts(db)).toBe(1);
    const [closed] = await attempts(ccPairId);
    expect(closed).toMatchObject({ status: "success", docsIndexed: 1 });
    expect(closed?.finishedAt).toEqual(lastActivity);
    expect((await pair(ccPairId)).lastAttemptStatus).toBe("success");
  });
});
