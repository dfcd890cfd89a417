import { getIndexRebuildStatus, listIndexingStatus, OPERATOR_PRINCIPAL } from "@svc/core";
import { createTestPair, holdPairLocks, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { camelInput, IndexingStatusRequestSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { indexedProgress, ingestMany, startRebuildUntilLockWait, useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

/** A grace period no test waits out: a stop that takes it shows the shutdown waited on a handler. */
const LONG_GRACE = { SVC_SHUTDOWN_GRACE_MS: "90000" };
/** How long a stop may take here: the worker finishes a batch or two, marks, disconnects. */
const STOP_BOUND_MS = 20_000;

/** The pair's row of the listing, as REST and the console read it (the core function both call). */
async function listingRow(ccPairId: number, secondaryIndex: boolean) {
  const listing = await listIndexingStatus({
    db,
    principal: OPERATOR_PRINCIPAL,
    request: camelInput(IndexingStatusRequestSchema).parse({ getAllConnectors: true, secondaryIndex }),
  });
  return listing.flatMap((group) => group.indexingStatuses).find((row) => "ccPairId" in row && row.ccPairId === ccPairId);
}

/** SIGTERM, then the exit code and how long the process took to exit. */
async function timedStop(worker: ReturnType<typeof startWorker>): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  const code = await worker.stop();
  return { code, ms: performance.now() - started };
}

describe("a worker stopped with SIGTERM", () => {
  it("stops a rebuild waiting on a lock at once: exit 0, its run's attempts interrupted, and a later worker finishes the rebuild", async () => {
    const first = await createTestPair(db, { name: "Rebuilt before the stop" });
    const second = await createTestPair(db, { name: "Rebuilt after the restart" });
    const documents = [
      ...Array.from({ length: 200 }, (_, index) => ({ id: `stop-a-${String(index).padStart(3, "0")}`, text: `Crate ${index} of the first pair.`, ccPairId: first })),
      ...Array.from({ length: 60 }, (_, index) => ({ id: `stop-b-${String(index).padStart(3, "0")}`, text: `Barrel ${index} of the second pair.`, ccPairId: second })),
    ];
    const worker = startWorker(LONG_GRACE);
    await ingestMany({ db, boss }, documents);
    await waitForIndexed(db, documents.map((document) => document.id), { timeoutMs: 60_000 });

    // The second pair's row lock held: the pass writes the first batch, then waits half way through the second.
    const locks = await holdPairLocks(db, [second], 180_000);
    let generationId = 0;
    try {
      generationId = await startRebuildUntilLockWait({ db, boss }, first, worker.output);
      expect(await listingRow(first, true)).toMatchObject({ lastStatus: "in_progress", inProgress: true });

      // Stopped while the lock is still held: the shutdown must not wait for it.
      const stop = await timedStop(worker);
      expect(stop.code, worker.output()).toBe(0);
      expect(stop.ms).toBeLessThan(STOP_BOUND_MS);
      const attempts = await db.indexAttempt.findMany({ where: { generationId }, select: { ccPairId: true, status: true, docsIndexed: true, rebuild: true } });
      expect(attempts).toEqual([{ ccPairId: first, status: "interrupted", docsIndexed: 200, rebuild: true }]);
      expect(await listingRow(first, true)).toMatchObject({ lastStatus: "interrupted", lastFinishedStatus: "interrupted", inProgress: false });
      expect((await getIndexRebuildStatus({ db })).rebuild).toMatchObject({ generationId, status: "building" });
    } finally {
      await locks.release();
    }

    // The job was failed into a retry: a new worker resumes it at the cursor and swaps.
    const restarted = startWorker();
    await waitFor(
      "the resumed rebuild swapped in",
      async () => ((await getIndexRebuildStatus({ db })).current.generationId === generationId ? true : undefined),
      { timeoutMs: 120_000, describe: restarted.output },
    );
    const after = await db.indexAttempt.findMany({ where: { generationId }, orderBy: { id: "asc" }, select: { ccPairId: true, status: true, docsIndexed: true } });
    expect(after).toEqual([
      { ccPairId: first, status: "interrupted", docsIndexed: 200 },
      { ccPairId: second, status: "success", docsIndexed: 60 },
    ]);
    expect(await listingRow(first, false)).toMatchObject({ lastStatus: "interrupted", inProgress: false });
    expect(await restarted.stop()).toBe(0);
  }, 300_000);

  it("as the last worker, ends its pairs' open ingestion attempts interrupted; the next worker indexes the rest in a new attempt", async () => {
    const ccPairId = await createTestPair(db, { name: "Stopped mid-stream" });
    await db.document.deleteMany({});
    const documents = Array.from({ length: 3_000 }, (_, index) => ({ id: `stream-${String(index).padStart(5, "0")}`, text: `Manifest line ${index}.`, ccPairId }));
    await ingestMany({ db, boss }, documents);
    const worker = startWorker({ ...LONG_GRACE, SVC_WORKER_BATCH_SIZE: "20", SVC_WORKER_CONCURRENCY: "1" });
    await waitFor(
      "some of the pair's documents indexed",
      async () => ((await indexedProgress(db)).indexed >= 100 ? true : undefined),
      { timeoutMs: 60_000, describe: worker.output },
    );
    expect(await listingRow(ccPairId, false)).toMatchObject({ lastStatus: "in_progress", inProgress: true });

    const stop = await timedStop(worker);
    expect(stop.code, worker.output()).toBe(0);
    expect(stop.ms).toBeLessThan(STOP_BOUND_MS);
    expect((await indexedProgress(db)).indexed).toBeLessThan(documents.length);
    const stopped = await db.indexAttempt.findMany({ where: { ccPairId }, select: { status: true, docsIndexed: true, finishedAt: true, lastActivityAt: true } });
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ status: "interrupted" });
    expect(stopped[0]?.docsIndexed).toBeGreaterThan(0);
    expect(stopped[0]?.finishedAt).toEqual(stopped[0]?.lastActivityAt);
    expect(await listingRow(ccPairId, false)).toMatchObject({ lastStatus: "interrupted", lastFinishedStatus: "interrupted", inProgress: false });

    const restarted = startWorker();
    await waitFor(
      "every document indexed",
      async () => ((await indexedProgress(db)).indexed === documents.length ? true : undefined),
      { timeoutMs: 120_000, describe: restarted.output },
    );
    await waitFor(
      "the new attempt closed",
      async () => ((await db.indexAttempt.count({ where: { ccPairId, status: "in_progress" } })) === 0 ? true : undefined),
      { timeoutMs: 30_000, describe: restarted.output },
    );
    const history = await db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" }, select: { status: true, docsIndexed: true } });
    expect(history.map((attempt) => attempt.status)).toEqual(["interrupted", "success"]);
    expect(history.reduce((sum, attempt) => sum + attempt.docsIndexed, 0)).toBe(documents.length);
    expect(await restarted.stop()).toBe(0);
  }, 300_000);
});
