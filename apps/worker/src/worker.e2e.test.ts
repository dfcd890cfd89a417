import { ingestDocument } from "@svc/core";
import { useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

describe("the worker process", () => {
  it("indexes what is ingested, then stops cleanly on SIGTERM", async () => {
    const worker = startWorker();
    const ids = Array.from({ length: 25 }, (_, index) => `worker-doc-${index}`);
    for (const id of ids) {
      await ingestDocument({
        db,
        boss,
        principal: { apiKeyId: 0, name: "test", role: "admin", scopeCcPairIds: null },
        input: IngestionDocumentSchema.parse({ document: { id, semantic_identifier: id, sections: [{ text: `text of ${id}` }], metadata: {} } }),
      });
    }
    await waitFor(
      "every document indexed",
      async () => {
        const indexed = await db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } });
        return indexed === ids.length ? indexed : undefined;
      },
      { timeoutMs: 20_000, describe: worker.output },
    );
    expect(await db.documentChunk.count({ where: { documentId: { in: ids } } })).toBe(ids.length);

    expect(await worker.stop()).toBe(0);
  });
});
