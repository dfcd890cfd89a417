import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { prepareDatabase, startJobQueue, type PgBoss } from "@svc/core";
import { removeTestSearchIndex } from "@svc/core/testing";
import { createDb, type Db } from "@svc/db";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "@svc/db/embedded";
import { afterAll, beforeAll } from "vitest";
import type { WorkerProcess } from "./worker-process";

/** Throwaway flags: these servers need no durability. */
export const THROWAWAY_POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];

export interface OwnPostgres {
  dataDir: string;
  /** Undefined while a test has it stopped. */
  server: EmbeddedPostgresServer | undefined;
  db: Db;
  boss: PgBoss;
  /** The worker a test started, killed after the file's tests. */
  worker: WorkerProcess | undefined;
}

/**
 * For a test file's top level: a PostgreSQL server of the file's own (the shared one cannot be
 * restarted or frozen from a test), migrated, with a client and a pg-boss producer on it; all of it
 * removed after the file's tests. The returned object is filled in by beforeAll.
 */
export function useOwnPostgres(prefix: string): OwnPostgres {
  const own = {} as OwnPostgres;
  beforeAll(async () => {
    own.dataDir = await mkdtemp(path.join(os.tmpdir(), prefix));
    own.server = await startEmbeddedPostgres({ dataDir: own.dataDir, postgresFlags: THROWAWAY_POSTGRES_FLAGS });
    await prepareDatabase(own.server.databaseUrl);
    own.db = createDb({ databaseUrl: own.server.databaseUrl, poolSize: 5 });
    own.boss = await startJobQueue({ databaseUrl: own.server.databaseUrl, role: "producer" });
  });
  afterAll(async () => {
    await own.worker?.kill();
    await own.boss?.stop({ graceful: false, close: true });
    await own.db?.$disconnect();
    await removeTestSearchIndex();
    await own.server?.stop();
    if (own.dataDir) await rm(own.dataDir, { recursive: true, force: true });
  });
  return own;
}
