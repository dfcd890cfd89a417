import { getIndexRebuildStatus, ingestDocument, OPERATOR_PRINCIPAL, startIndexRebuild } from "@svc/core";
import { useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

const LONG_TEXT = Array.from({ length: 40 }, (_, index) => `Line ${index} of the shipping manifest lists crates and barrels.`).join(" ");

async function ingest(ids: string[]): Promise<void> {
  for (const id of ids) {
    await ingestDocument({
      db,
      boss,
      principal: OPERATOR_PRINCIPAL,
      input: IngestionDocumentSchema.parse({ document: { id, semantic_identifier: id, sections: [{ text: `${id}: ${LONG_TEXT}` }], metadata: {} } }),
    });
  }
}

async function waitForIndexed(ids: string[]): Promise<void> {
  await waitFor(
    "every document indexed",
    async () => ((await db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } })) === ids.length ? true : undefined),
    { timeoutMs: 30_000 },
  );
}

describe("an index rebuild in the worker", () => {
  it("builds the new generation, swaps it in and purges the old one while documents keep coming", async () => {
    const worker = startWorker();
    const before = Array.from({ length: 30 }, (_, index) => `before-${index}`);
    await ingest(before);
    await waitForIndexed(before);

    const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: 128 });
    const during = Array.from({ length: 10 }, (_, index) => `during-${index}`);
    await ingest(during);
    await waitForIndexed(during);

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
