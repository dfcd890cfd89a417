import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ingestDocument, startJobQueue, type PgBoss } from "@svc/core";
import type { Db } from "@svc/db";
import { IngestionDocumentSchema } from "@svc/schema";
import { createTestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const workerEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

let db: Db;
let boss: PgBoss;
let databaseUrl: string;
let drop: () => Promise<void>;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  const database = await createTestDatabase();
  ({ db, drop, databaseUrl } = database);
  boss = await startJobQueue({ databaseUrl, role: "producer" });
});
afterAll(async () => {
  worker?.kill("SIGKILL");
  await boss.stop({ graceful: false, close: true });
  await db.$disconnect();
  await drop();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the worker process", () => {
  it("indexes what is ingested, then stops cleanly on SIGTERM", async () => {
    worker = spawn(process.execPath, [workerEntry], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: "pipe" });
    const ids = Array.from({ length: 25 }, (_, index) => `worker-doc-${index}`);
    for (const id of ids) {
      await ingestDocument({
        db,
        boss,
        principal: { apiKeyId: 0, name: "test", role: "admin", scopeCcPairIds: null },
        input: IngestionDocumentSchema.parse({ document: { id, semantic_identifier: id, sections: [{ text: `text of ${id}` }], metadata: {} } }),
      });
    }
    await waitFor("every document indexed", async () => {
      const indexed = await db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } });
      return indexed === ids.length ? indexed : undefined;
    });
    expect(await db.documentChunk.count({ where: { documentId: { in: ids } } })).toBe(ids.length);

    const exited = new Promise<number | null>((resolve) => worker?.once("exit", (code) => resolve(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
