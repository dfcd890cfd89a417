import { getIndexRebuildStatus, OPERATOR_PRINCIPAL, startIndexRebuild } from "@svc/core";
import { createTestPair, holdPairLocks, ingestTestDocument, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { ingestMany, startRebuildUntilLockWait, useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

const LONG_TEXT = Array.from({ length: 40 }, (_, index) => `Line ${index} of the shipping manifest lists crates and barrels.`).join(" ");

describe("an index rebuild in the worker", () => {
  it("builds the new generation, swaps it in and purges the old one while documents keep coming", async () => {
    const worker = startWorker();
    const before = Array.from({ length: 30 }, (_, index) => `before-${index}`);
    for (const id of before) await ingestTestDocument(queue, { id, text: `${id}: ${LONG_TEXT}` });
    await waitForIndexed(db, before);

    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 128 });
    const during = Array.from({ length: 10 }, (_, index) => `during-${index}`);
    for (const id of during) await ingestTestDocument(queue, { id, text: `${id}: ${LONG_TEXT}` });
    await waitForIndexed(db, during);

    const oldGeneration = started.current.generationId;
    const newGeneration = started.rebuild?.generationId ?? 0;
    await waitFor(
      "the rebuild swapped in and the old generation purged",
      async () => {
        const status = await getIndexRebuildStatus({ db });
        const left = await db.documentChunk.count({ where: { generationId: oldGeneration } });
        return status.current.generationId === newGeneration && left === 0 ? true : undefined;
      },
      { timeoutMs: 60_000, describe: worker.output },
    );
    // Every document, those ingested during the rebuild too, is in the new generation at the new size.
    const perDocument = await db.documentChunk.groupBy({ by: ["documentId"], where: { generationId: newGeneration }, _count: true });
    expect(perDocument.map((row) => row.documentId).sort()).toEqual([...before, ...during].sort());
    expect(perDocument.every((row) => row._count > 1)).toBe(true);
    expect(worker.output()).toContain(`index generation ${newGeneration} is current`);
    expect(await worker.stop()).toBe(0);
  });

  it("a worker killed with SIGKILL mid-rebuild: its run's attempts end interrupted, and the restarted run finishes the rebuild", async () => {
    // Two pairs whose documents fill one batch of the pass each (200 documents, in id order).
    const first = await createTestPair(db, { name: "Rebuilt before the kill" });
    const second = await createTestPair(db, { name: "Rebuilt after the restart" });
    const documents = [
      ...Array.from({ length: 200 }, (_, index) => ({ id: `kill-a-${String(index).padStart(3, "0")}`, text: `Crate ${index} of the first pair.`, ccPairId: first })),
      ...Array.from({ length: 60 }, (_, index) => ({ id: `kill-b-${String(index).padStart(3, "0")}`, text: `Barrel ${index} of the second pair.`, ccPairId: second })),
    ];
    // Only this test's documents are in the pass.
    await db.document.deleteMany({});
    const worker = startWorker();
    await ingestMany({ db, boss }, documents);
    await waitForIndexed(db, documents.map((document) => document.id), { timeoutMs: 60_000 });
    // The documents deleted above left the index holding rows PostgreSQL no longer has, so the worker
    // refills it at start with a rebuild of its own: the test's rebuild starts once that one is done.
    await waitFor("the worker's own refill of the index finished", async () => ((await getIndexRebuildStatus({ db })).rebuild === null ? true : undefined), {
      timeoutMs: 60_000,
      describe: worker.output,
    });

    // The second pair's row lock held: the pass writes the first batch, then stops half way through the second.
    const locks = await holdPairLocks(db, [second], 120_000);
    let generationId = 0;
    try {
      generationId = await startRebuildUntilLockWait({ db, boss }, first, worker.output);
      await worker.kill();
    } finally {
      await locks.release();
    }
    expect(await db.indexAttempt.findMany({ where: { generationId }, select: { ccPairId: true, status: true, docsIndexed: true } })).toEqual([
      { ccPairId: first, status: "in_progress", docsIndexed: 200 },
    ]);

    // A new worker: once the dead run's heartbeat lapses the job runs again, resumes at its cursor and swaps.
    const restarted = startWorker();
    await waitFor(
      "the resumed rebuild swapped in",
      async () => ((await getIndexRebuildStatus({ db })).current.generationId === generationId ? true : undefined),
      { timeoutMs: 120_000, describe: restarted.output },
    );
    const attempts = await db.indexAttempt.findMany({
      where: { generationId },
      orderBy: { id: "asc" },
      select: { ccPairId: true, status: true, docsIndexed: true, docsFailed: true, finishedAt: true, lastActivityAt: true },
    });
    expect(attempts.map(({ ccPairId, status, docsIndexed, docsFailed }) => ({ ccPairId, status, docsIndexed, docsFailed }))).toEqual([
      { ccPairId: first, status: "interrupted", docsIndexed: 200, docsFailed: 0 },
      { ccPairId: second, status: "success", docsIndexed: 60, docsFailed: 0 },
    ]);
    // The cut-off attempt ends when it last counted, not when the restart noticed.
    expect(attempts[0]?.finishedAt).toEqual(attempts[0]?.lastActivityAt);
    expect((await getIndexRebuildStatus({ db })).lastRebuild).toMatchObject({ docsDone: 260, docsFailed: 0 });
    // Every document is in the new generation once.
    const perDocument = await db.documentChunk.groupBy({ by: ["documentId"], where: { generationId }, _count: true });
    expect(perDocument).toHaveLength(documents.length);
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: first } })).lastAttemptStatus).toBe("interrupted");
  }, 240_000);
});
