import { ingestTestDocument, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
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
});
