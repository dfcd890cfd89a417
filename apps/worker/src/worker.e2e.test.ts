import { createTestPair, ingestTestDocument, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

describe("the worker process", () => {
  it("indexes what is ingested, then stops cleanly on SIGTERM", async () => {
    const worker = startWorker();
    const ids = Array.from({ length: 25 }, (_, index) => `worker-doc-${index}`);
    for (const id of ids) await ingestTestDocument(queue, { id });
    await waitForIndexed(db, ids, { timeoutMs: 20_000, describe: worker.output });
    expect(await db.documentChunk.count({ where: { documentId: { in: ids } } })).toBe(ids.length);

    expect(await worker.stop()).toBe(0);
  });

  it("stamps its heartbeat row while it runs (readiness reads it) and removes it on SIGTERM", async () => {
    const worker = startWorker();
    const [beat] = await waitFor(
      "the worker's heartbeat row",
      async () => {
        const rows = await db.workerHeartbeat.findMany();
        return rows.length > 0 ? rows : undefined;
      },
      { timeoutMs: 20_000, describe: worker.output },
    );
    expect(Date.now() - beat!.seenAt.getTime()).toBeLessThan(60_000);

    expect(await worker.stop()).toBe(0);
    expect(await db.workerHeartbeat.count()).toBe(0);
  });

  it("keeps one attempt through a push stream that drains the queue between pushes, closed at every drain and reopened by the next push", { timeout: 120_000 }, async () => {
    // Far longer than a push takes to index even on a loaded machine, so every push comes within it.
    const quietSeconds = 20;
    const worker = startWorker({ SVC_ATTEMPT_QUIET_SECONDS: String(quietSeconds) });
    const ccPairId = await createTestPair(db, { name: "Stream" });
    const attempts = () => db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" } });
    // Each document is pushed once the previous one is indexed: the pair's queue is empty between pushes.
    const ids = Array.from({ length: 8 }, (_, index) => `stream-doc-${index}`);
    for (const [index, id] of ids.entries()) {
      await ingestTestDocument(queue, { id, ccPairId });
      await waitForIndexed(db, [id], { timeoutMs: 20_000, describe: worker.output });
      // Closed by the transaction that indexed the pair's last pending document: nothing reads in progress.
      expect((await attempts()).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([["success", index + 1]]);
    }
    const [closed] = await attempts();
    expect(closed).toMatchObject({ docsIndexed: ids.length, docsFailed: 0 });
    expect(closed?.finishedAt).toEqual(closed?.lastActivityAt);
    expect(await worker.stop()).toBe(0);
  });
});
