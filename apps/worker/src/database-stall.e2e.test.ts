import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { prepareDatabase, startJobQueue, type PgBoss } from "@svc/core";
import { createTestPair, removeTestSearchIndex } from "@svc/core/testing";
import { createDb, type Db } from "@svc/db";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "@svc/db/embedded";
import { freezePostgres, waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectConsistentIndex, indexedProgress, ingestMany, spawnWorker, type WorkerProcess } from "./testing/worker-process";

// A database that is up but does not answer (decisions.md "Limits and overload"): every process of
// this file's own PostgreSQL is stopped with SIGSTOP while the worker indexes, then resumed.
const POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
const DOCUMENTS = 1_000;

let dataDir: string;
let server: EmbeddedPostgresServer | undefined;
let db: Db;
let boss: PgBoss;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-worker-stall-pg-"));
  server = await startEmbeddedPostgres({ dataDir, postgresFlags: POSTGRES_FLAGS });
  await prepareDatabase(server.databaseUrl);
  db = createDb({ databaseUrl: server.databaseUrl, poolSize: 5 });
  boss = await startJobQueue({ databaseUrl: server.databaseUrl, role: "producer" });
});
afterAll(async () => {
  await worker?.kill();
  await boss?.stop({ graceful: false, close: true });
  await db?.$disconnect();
  await removeTestSearchIndex();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the worker on a database that stops answering", () => {
  it("stays up, pauses while it lasts, and resumes by itself: every document indexed once", async () => {
    if (!server) throw new Error("no server");
    const pair = await createTestPair(db, { name: "Stall" });
    const ids = Array.from({ length: DOCUMENTS }, (_, index) => `stall-${String(index).padStart(5, "0")}`);
    await ingestMany({ db, boss }, ids.map((id) => ({ id, text: `text of ${id}`, ccPairId: pair })));

    worker = spawnWorker(server.databaseUrl);
    const running = worker;
    await waitFor("the worker to index some documents", async () => ((await indexedProgress(db)).indexed >= DOCUMENTS / 10 ? true : undefined), {
      timeoutMs: 60_000,
      describe: running.output,
    });

    const thaw = await freezePostgres(dataDir);
    try {
      // The worker's pool notices by itself and fails fast from then on.
      await waitFor("the worker to find the database unanswering", () => (running.output().includes("the database does not answer") ? true : undefined), {
        timeoutMs: 15_000,
        describe: running.output,
      });
      expect(running.alive()).toBe(true);
    } finally {
      thaw();
    }
    await waitFor("the worker to find the database again", () => (running.output().includes("the database answers again") ? true : undefined), {
      timeoutMs: 15_000,
      describe: running.output,
    });

    await waitFor(
      "every document indexed",
      async () => {
        const progress = await indexedProgress(db);
        return progress.indexed === DOCUMENTS ? progress : undefined;
      },
      { timeoutMs: 100_000, retryOnError: true, describe: running.output },
    );
    expect(running.alive()).toBe(true);
    await expectConsistentIndex(db, [], "");
    expect(await running.stop()).toBe(0);
  }, 170_000);
});
