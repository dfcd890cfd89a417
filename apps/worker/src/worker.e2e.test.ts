import { ingestTestDocument, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
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
});
