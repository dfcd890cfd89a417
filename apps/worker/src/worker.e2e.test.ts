import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ingestDocument } from "@svc/core";
import { useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { afterAll, describe, expect, it } from "vitest";

const workerEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

const queue = await useTestJobQueue();
const { db, boss } = queue;
let worker: ChildProcess | undefined;
// Runs before the queue's own afterAll (vitest runs them last registered first).
afterAll(() => {
  worker?.kill("SIGKILL");
});

describe("the worker process", () => {
  it("indexes what is ingested, then stops cleanly on SIGTERM", async () => {
    worker = spawn(process.execPath, [workerEntry], { env: { ...process.env, DATABASE_URL: queue.databaseUrl }, stdio: "pipe" });
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
      { timeoutMs: 20_000 },
    );
    expect(await db.documentChunk.count({ where: { documentId: { in: ids } } })).toBe(ids.length);

    const exited = new Promise<number | null>((resolve) => worker?.once("exit", (code) => resolve(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
