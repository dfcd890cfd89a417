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

  it("keeps one attempt through a push stream that drains the queue between pushes, and its sweep closes it once quiet", { timeout: 120_000 }, async () => {
    // Far longer than a push takes to index even on a loaded machine, so only the end of the stream is quiet.
    const quietSeconds = 20;
    const worker = startWorker({ SVC_ATTEMPT_QUIET_SECONDS: String(quietSeconds) });
    const ccPairId = await createTestPair(db, { name: "Stream" });
    // Each document is pushed once the previous one is indexed: the pair's queue is empty between pushes.
    const ids = Array.from({ length: 8 }, (_, index) => `stream-doc-${index}`);
    for (const id of ids) {
      await ingestTestDocument(queue, { id, ccPairId });
      await waitForIndexed(db, [id], { timeoutMs: 20_000, describe: worker.output });
    }
    const attempts = () => db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" } });
    expect((await attempts()).map((attempt) => [attempt.status, attempt.docsIndexed])).toEqual([["in_progress", ids.length]]);

    // Nothing more arrives: the worker's sweep closes it, at its last document.
    const [closed] = await waitFor(
      "the attempt closed by the sweep",
      async () => {
        const rows = await attempts();
        return rows[0]?.status === "success" ? rows : undefined;
      },
      { timeoutMs: (quietSeconds + 30) * 1000, describe: worker.output },
    );
    expect(closed).toMatchObject({ docsIndexed: ids.length, docsFailed: 0 });
    expect(closed?.finishedAt).toEqual(closed?.lastActivityAt);
    expect(await worker.stop()).toBe(0);
  });
});
