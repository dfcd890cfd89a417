// One definition of a failed document, the same number everywhere (health, a pair's page, the CLI's
// per-pair count), a failure that stays until something real fixes it, and a pair's failed documents
// paged and retried within the key's scope. Indexing fails for real: a trigger rejects a chunk.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL, type Principal } from "../auth/principal";
import { getPairIndexingSummary } from "./get-pair-indexing-summary";
import { getIndexingHealth } from "../health/get-indexing-health";
import { indexDocumentJob } from "../jobs/catalog";
import { indexDocuments } from "../indexing/index-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "../testing/poison-chunks";
import { createTestPair, currentIndexJobs, ingestTestDocument } from "../testing/factories";
import { testSearchIndex } from "../testing/test-search-index";

const NO_SEARCHES = { windowSeconds: 300, searches: 0, p50Ms: null, p95Ms: null };
import { countFailedDocuments } from "./count-failed-documents";
import { countFailedDocumentsPerPair } from "./count-failed-documents-per-pair";
import { listPairDocumentStatuses } from "./list-pair-document-statuses";
import { retryDocumentIndexing } from "./retry-document-indexing";
import { retryPairFailedDocuments } from "./retry-pair-failed-documents";

const queue = await useTestJobQueue();
const { db, boss } = queue;
let pair = 0;
let otherPair = 0;
let privatePair = 0;

function scopedTo(...ids: number[]): Principal {
  return { apiKeyId: 0, name: "scoped", role: "admin", scopeCcPairIds: ids };
}

async function index(ids: string[]): Promise<void> {
  await indexDocuments({ index: testSearchIndex(), db, jobs: await currentIndexJobs(db, ids) }).catch(() => undefined);
}

async function retryJobs(documentId: string): Promise<number> {
  return (await boss.findJobs(indexDocumentJob.name, { data: { documentId }, queued: true })).length;
}

beforeAll(async () => {
  await installPoisonTrigger(db);
  pair = await createTestPair(db, { name: "Tickets" });
  otherPair = await createTestPair(db, { name: "Wiki" });
  privatePair = await createTestPair(db, { name: "Secret", access: "private" });
  for (const id of ["ok-1", "ok-2"]) await ingestTestDocument(queue, { id, text: "fine text", ccPairId: pair });
  for (const id of ["bad-1", "bad-2", "bad-3"]) await ingestTestDocument(queue, { id, text: `a ${POISON}`, ccPairId: pair });
  // bad-3 also belongs to another pair; a hidden failure sits in a private pair.
  await ingestTestDocument(queue, { id: "bad-3", text: `a ${POISON}`, ccPairId: otherPair });
  await ingestTestDocument(queue, { id: "hidden-bad", text: `a ${POISON}`, ccPairId: privatePair });
  await ingestTestDocument(queue, { id: "waiting", text: "not indexed yet", ccPairId: pair });
  await index(["ok-1", "ok-2", "bad-1", "bad-2", "bad-3", "hidden-bad"]);
});

describe("failed documents", () => {
  it("are counted the same on health, on the pair and per pair, as far as the key may see", async () => {
    const health = await getIndexingHealth({ db, boss, index: testSearchIndex(), principal: OPERATOR_PRINCIPAL, searchLatency: NO_SEARCHES });
    expect(health.failedDocumentCount).toBe(4);
    expect(health.failedDocuments.map((document) => document.documentId).sort()).toEqual(["bad-1", "bad-2", "bad-3", "hidden-bad"]);
    expect(health.queue).not.toHaveProperty("failed");
    expect(await countFailedDocuments({ db, principal: scopedTo(pair) })).toBe(3);
    expect(await countFailedDocumentsPerPair({ db, principal: OPERATOR_PRINCIPAL, ccPairIds: [pair, otherPair, privatePair] })).toEqual(
      new Map([
        [pair, 3],
        [otherPair, 1],
        [privatePair, 1],
      ]),
    );
    // A key scoped elsewhere does not learn about the private pair.
    expect((await countFailedDocumentsPerPair({ db, principal: scopedTo(pair), ccPairIds: [privatePair] })).size).toBe(0);
    expect(await getPairIndexingSummary({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair })).toEqual({
      inRepeatedErrorState: false,
      documents: { indexed: 2, queued: 1, failed: 3 },
    });
  });

  it("are paged per pair with their reason, by status filter", async () => {
    const first = await listPairDocumentStatuses({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair, status: "failed", limit: 2, afterId: null });
    expect(first.documents.map((document) => [document.documentId, document.indexingStatus, document.lastError])).toEqual([
      ["bad-1", "failed", "chunk rejected"],
      ["bad-2", "failed", "chunk rejected"],
    ]);
    expect(first.nextCursor).not.toBeNull();
    const second = await listPairDocumentStatuses({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair, status: "failed", limit: 2, afterId: "bad-2" });
    expect(second).toMatchObject({ documents: [{ documentId: "bad-3" }], nextCursor: null });
    const queued = await listPairDocumentStatuses({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair, status: "queued", limit: 10, afterId: null });
    expect(queued.documents.map((document) => document.documentId)).toEqual(["waiting"]);
    const indexed = await listPairDocumentStatuses({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair, status: "indexed", limit: 10, afterId: null });
    expect(indexed.documents.map((document) => [document.documentId, document.lastError])).toEqual([
      ["ok-1", null],
      ["ok-2", null],
    ]);
    await expect(listPairDocumentStatuses({ db, principal: scopedTo(pair), ccPairId: privatePair, status: null, limit: 10, afterId: null })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("stay failed through a retry that fails again, which counts in the pair's attempt once more", async () => {
    const failedBefore = (await db.indexAttempt.aggregate({ where: { ccPairId: pair }, _sum: { docsFailed: true } }))._sum.docsFailed ?? 0;
    await retryDocumentIndexing({ db, boss, principal: OPERATOR_PRINCIPAL, documentId: "bad-1" });
    expect(await db.document.findUniqueOrThrow({ where: { id: "bad-1" } })).toMatchObject({ indexingStatus: "failed", indexAttempts: 0 });
    expect(await countFailedDocuments({ db, principal: OPERATOR_PRINCIPAL })).toBe(4);
    await index(["bad-1"]);
    expect(await db.document.findUniqueOrThrow({ where: { id: "bad-1" } })).toMatchObject({ indexingStatus: "failed", indexAttempts: 1 });
    // pg-boss retrying the same try again does not count it twice.
    await index(["bad-1"]);
    const failedAfter = (await db.indexAttempt.aggregate({ where: { ccPairId: pair }, _sum: { docsFailed: true } }))._sum.docsFailed ?? 0;
    expect(failedAfter).toBe(failedBefore + 1);
  });

  it("leave the count only when something real fixes them: a new version that indexes", async () => {
    await ingestTestDocument(queue, { id: "bad-2", text: "repaired text", ccPairId: pair });
    await index(["bad-2"]);
    expect((await db.document.findUniqueOrThrow({ where: { id: "bad-2" } })).indexingStatus).toBe("indexed");
    expect(await countFailedDocuments({ db, principal: OPERATOR_PRINCIPAL })).toBe(3);
    expect((await getPairIndexingSummary({ db, principal: OPERATOR_PRINCIPAL, ccPairId: pair })).documents).toEqual({ indexed: 3, queued: 1, failed: 2 });
  });

  it("are retried all at once for a pair, within the key's scope only", async () => {
    await expect(retryPairFailedDocuments({ db, boss, principal: scopedTo(otherPair), ccPairId: pair })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(retryPairFailedDocuments({ db, boss, principal: scopedTo(pair), ccPairId: privatePair })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const jobsBefore = { bad1: await retryJobs("bad-1"), bad3: await retryJobs("bad-3") };
    // bad-3 is also in the other pair, which this key may not change: left alone and counted.
    expect(await retryPairFailedDocuments({ db, boss, principal: scopedTo(pair), ccPairId: pair })).toEqual({ retried: 1, skipped: 1 });
    expect(await retryJobs("bad-1")).toBe(jobsBefore.bad1 + 1);
    expect(await retryJobs("bad-3")).toBe(jobsBefore.bad3);
    expect(await retryPairFailedDocuments({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId: pair })).toEqual({ retried: 2, skipped: 0 });
    expect(await retryJobs("bad-3")).toBe(jobsBefore.bad3 + 1);
    // Once the poison is gone, the retries index them and the failures leave every count.
    await removePoisonTrigger(db);
    await index(["bad-1", "bad-3", "hidden-bad"]);
    expect(await countFailedDocuments({ db, principal: OPERATOR_PRINCIPAL })).toBe(0);
    expect((await getIndexingHealth({ db, boss, index: testSearchIndex(), principal: OPERATOR_PRINCIPAL, searchLatency: NO_SEARCHES })).failedDocumentCount).toBe(0);
  });
});
