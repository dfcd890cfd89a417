import { getIndexRebuildStatus, OPERATOR_PRINCIPAL, startIndexRebuild } from "@svc/core";
import { ingestTestDocument, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

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

    const oldGeneration = started.current.generation_id;
    const newGeneration = started.rebuild?.generation_id ?? 0;
    await waitFor(
      "the rebuild swapped in and the old generation purged",
      async () => {
        const status = await getIndexRebuildStatus({ db });
        const left = await db.documentChunk.count({ where: { generationId: oldGeneration } });
        return status.current.generation_id === newGeneration && left === 0 ? true : undefined;
      },
      { timeoutMs: 60_000, describe: worker.output },
    );
    // Every document, those ingested during the rebuild too, is in the new generation at the new size.
    const perDocument = await db.documentChunk.groupBy({ by: ["documentId"], where: { generationId: newGeneration }, _count: true });
    expect(perDocument.map((row) => row.documentId).sort()).toEqual([...before, ...during].sort());
    expect(perDocument.every((row) => row._count > 1)).toBe(true);
    expect(worker.output()).toContain(`index generation ${newGeneration} is current`);
  });
});
