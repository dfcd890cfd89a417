import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { updateCcPair } from "../connectors/update-cc-pair";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, ingestTestDocument } from "../testing/factories";
import { holdPairLocks } from "../testing/hold-pair-locks";
import { indexDocuments } from "./index-documents";
import { markDocumentsIndexing } from "./document-rows";

const queue = await useTestJobQueue();
const { db, boss } = queue;

async function statusOf(id: string): Promise<string | undefined> {
  return (await db.document.findUnique({ where: { id }, select: { indexingStatus: true } }))?.indexingStatus;
}

async function attemptsOf(ccPairId: number) {
  return db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" }, select: { status: true, docsIndexed: true } });
}

describe("markDocumentsIndexing", () => {
  it("moves only documents still queued at the job's version", async () => {
    const active = await createTestPair(db);
    const paused = await createTestPair(db);
    const queued = await ingestTestDocument(queue, { id: "mark-queued", ccPairId: active });
    const superseded = await ingestTestDocument(queue, { id: "mark-superseded", ccPairId: active });
    await ingestTestDocument(queue, { id: "mark-superseded", ccPairId: active }); // version 2: the version 1 job is stale
    const indexed = await ingestTestDocument(queue, { id: "mark-indexed", ccPairId: active });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [indexed] });
    const failed = await ingestTestDocument(queue, { id: "mark-failed", ccPairId: active });
    // As a failed try leaves it (index-documents.ts): a retry must find it still `failed`.
    await db.document.update({ where: { id: "mark-failed" }, data: { indexingStatus: "failed", lastError: "boom", indexAttempts: 1 } });
    await updateCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId: paused, status: "PAUSED" });
    const onlyPaused = await ingestTestDocument(queue, { id: "mark-only-paused", ccPairId: paused });
    const alsoActive = await ingestTestDocument(queue, { id: "mark-also-active", ccPairId: paused });
    await ingestTestDocument(queue, { id: "mark-also-active", ccPairId: active });
    const alsoActiveJob = { documentId: "mark-also-active", version: 2 };

    await markDocumentsIndexing({
      db,
      jobs: [queued, superseded, indexed, failed, onlyPaused, alsoActive, alsoActiveJob, { documentId: "mark-missing", version: 1 }],
    });

    expect({
      queued: await statusOf("mark-queued"),
      superseded: await statusOf("mark-superseded"),
      indexed: await statusOf("mark-indexed"),
      failed: await statusOf("mark-failed"),
      onlyPaused: await statusOf("mark-only-paused"),
      alsoActive: await statusOf("mark-also-active"),
      missing: await statusOf("mark-missing"),
    }).toEqual({
      queued: "indexing",
      superseded: "queued",
      indexed: "indexed",
      failed: "failed",
      onlyPaused: "queued",
      alsoActive: "indexing",
      missing: undefined,
    });
  });

  it("skips a document whose row another transaction holds, without waiting for it", async () => {
    const ccPairId = await createTestPair(db);
    const held = await ingestTestDocument(queue, { id: "mark-held", ccPairId });
    const free = await ingestTestDocument(queue, { id: "mark-free", ccPairId });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM document WHERE id = 'mark-held' FOR UPDATE`;
      locked();
      await released;
    });
    await lockTaken;
    try {
      await markDocumentsIndexing({ db, jobs: [held, free] });
    } finally {
      release();
      await holder;
    }
    expect([await statusOf("mark-held"), await statusOf("mark-free")]).toEqual(["queued", "indexing"]);
  });

  it("shows `indexing` while the batch runs; the pair's attempt stays open until its documents are done", async () => {
    const ccPairId = await createTestPair(db);
    const jobs = [await ingestTestDocument(queue, { id: "mark-run-1", ccPairId }), await ingestTestDocument(queue, { id: "mark-run-2", ccPairId })];
    const lock = await holdPairLocks(db, [ccPairId]);
    const indexing = indexDocuments({ index: testSearchIndex(), db, jobs });
    try {
      await waitFor("both documents marked indexing", async () =>
        (await statusOf("mark-run-1")) === "indexing" && (await statusOf("mark-run-2")) === "indexing" ? true : undefined,
      );
    } finally {
      await lock.release();
    }
    await indexing;
    expect([await statusOf("mark-run-1"), await statusOf("mark-run-2")]).toEqual(["indexed", "indexed"]);
    expect(await attemptsOf(ccPairId)).toEqual([{ status: "success", docsIndexed: 2 }]);
  });

  it("leaves a killed worker's document pending until its retried job indexes it", async () => {
    const ccPairId = await createTestPair(db);
    const abandoned = await ingestTestDocument(queue, { id: "mark-abandoned", ccPairId });
    const other = await ingestTestDocument(queue, { id: "mark-other", ccPairId });
    // A worker marked the document, then died before indexing it.
    await markDocumentsIndexing({ db, jobs: [abandoned] });

    await indexDocuments({ index: testSearchIndex(), db, jobs: [other] });
    expect(await attemptsOf(ccPairId)).toEqual([{ status: "in_progress", docsIndexed: 1 }]);

    // pg-boss retries the dead worker's job once its heartbeat lapses.
    await indexDocuments({ index: testSearchIndex(), db, jobs: [abandoned] });
    expect(await statusOf("mark-abandoned")).toBe("indexed");
    expect(await attemptsOf(ccPairId)).toEqual([{ status: "success", docsIndexed: 2 }]);
  });

  it("leaves a document marked just before its only pair was paused to resuming, which sends its job again", async () => {
    const ccPairId = await createTestPair(db);
    const job = await ingestTestDocument(queue, { id: "mark-paused-late", ccPairId });
    await markDocumentsIndexing({ db, jobs: [job] });
    await updateCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId, status: "PAUSED" });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [job] });
    expect(await statusOf("mark-paused-late")).toBe("indexing");

    await updateCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId, status: "ACTIVE" });
    const sent = await db.$queryRaw<{ version: number }[]>`
      SELECT (data->>'version')::int AS version FROM pgboss.job
      WHERE name = 'index-document' AND data->>'documentId' = 'mark-paused-late' ORDER BY created_on`;
    expect(sent).toEqual([{ version: 1 }, { version: 1 }]);
    await indexDocuments({ index: testSearchIndex(), db, jobs: [job] });
    expect(await statusOf("mark-paused-late")).toBe("indexed");
    expect(await attemptsOf(ccPairId)).toEqual([{ status: "success", docsIndexed: 1 }]);
  });
});
