import type { Db } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { afterAll } from "vitest";
import { removeTestSearchIndex } from "./test-search-index";
import { startJobQueue, type PgBoss } from "../jobs/job-queue";

export interface TestJobQueue {
  databaseUrl: string;
  db: Db;
  /** A producer on the test database, as the web app holds one: it sends jobs but runs none. */
  boss: PgBoss;
  /** Stops `boss`, then drops the database (which disconnects `db`). */
  close(): Promise<void>;
}

/**
 * A test database of @svc/db/testing (the global setup in ./global-setup.ts installs the job
 * queues in it) with a producer queue open on it, for one test file: create it in beforeAll and
 * close() it in afterAll.
 */
export async function createTestJobQueue(): Promise<TestJobQueue> {
  const database = await createTestDatabase();
  let boss: PgBoss;
  try {
    boss = await startJobQueue({ databaseUrl: database.databaseUrl, role: "producer" });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    databaseUrl: database.databaseUrl,
    db: database.db,
    boss,
    close: async () => {
      await boss.stop({ graceful: false, close: true });
      await database.drop();
    },
  };
}

/**
 * createTestJobQueue for one test file, called with a top-level `await`: the queue is closed after
 * the file's tests (before any `afterAll` the file registers later has run, as vitest runs them last
 * registered first).
 */
export async function useTestJobQueue(): Promise<TestJobQueue> {
  const queue = await createTestJobQueue();
  afterAll(async () => {
    await queue.close();
    await removeTestSearchIndex();
  });
  return queue;
}
