import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, isDatabaseStalled, querySql, withSqlTransaction, type Db } from "./client";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "./embedded";
import { isDatabaseUnavailable } from "./is-database-unavailable";
import { freezePostgres, waitFor } from "./testing";

// A server of its own: freezing it must not stall other tests' databases.
let dataDir: string;
let server: EmbeddedPostgresServer;
let db: Db;
const POOL_SIZE = 4;
/** Stall detection (1 s) plus the probe's deadline (1 s), with room for a loaded machine. */
const BOUND_MS = 3_500;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-db-guard-"));
  server = await startEmbeddedPostgres({ dataDir, postgresFlags: ["-c", "fsync=off"] });
  const setup = createDb({ databaseUrl: server.databaseUrl, poolSize: 1 });
  await querySql(setup, { text: "CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY)" }).finally(() => setup.$disconnect());
  db = createDb({ databaseUrl: server.databaseUrl, poolSize: POOL_SIZE, applicationName: "svc-guard-test", acquireTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** How a call ends and how long it took. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await work().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { ms: performance.now() - started, error };
}

describe("a database that stops answering", () => {
  it("lets a slow statement on a server that answers run to its end: the probe tells it from a frozen server", async () => {
    const [row] = await querySql<{ slept: string }>(db, { text: "SELECT pg_sleep(2.5)::text AS slept" });
    expect(row).toEqual({ slept: "" });
    expect(isDatabaseStalled(db)).toBe(false);
  });


  it("fails every wait within the bound, then at once, commits nothing partial, and heals by itself", async () => {
    // Statements without a server-side timeout (the worker's pool): only the guard bounds them. The
    // pool's connections are open first, so statements also hang on them, not only on handshakes.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => querySql(db, { text: "SELECT pg_sleep(0.05)" })));
    const thaw = await freezePostgres(dataDir);
    try {
      const calls = await Promise.all([
        timed(() => querySql(db, { text: "SELECT 1" })),
        timed(() => db.$queryRawUnsafe("SELECT 1")),
        timed(() => db.$transaction(async (tx) => tx.$executeRawUnsafe("INSERT INTO t VALUES (1)"))),
        timed(() => withSqlTransaction(db, async (sql) => sql.query("INSERT INTO t VALUES (2)"))),
        ...Array.from({ length: 6 }, () => timed(() => querySql(db, { text: "SELECT 1" }))),
      ]);
      for (const call of calls) {
        expect(call.ms).toBeLessThan(BOUND_MS);
        expect(isDatabaseUnavailable(call.error), String(call.error)).toBe(true);
      }
      expect(isDatabaseStalled(db)).toBe(true);
      // Fail fast while it lasts.
      const fast = await timed(() => db.$queryRawUnsafe("SELECT 1"));
      expect(isDatabaseUnavailable(fast.error)).toBe(true);
      expect(fast.ms).toBeLessThan(100);
    } finally {
      thaw();
    }
    const healed = await waitFor("the pool to answer again", async () => {
      const result = await querySql<{ ok: number }>(db, { text: "SELECT 1 AS ok" }).catch(() => undefined);
      return result?.[0]?.ok === 1 ? result : undefined;
    }, { timeoutMs: 15_000 });
    expect(healed).toEqual([{ ok: 1 }]);
    expect(await querySql(db, { text: "SELECT id FROM t ORDER BY id" })).toEqual([]);
    const [connections] = await querySql<{ open: number }>(db, {
      text: "SELECT count(*)::int AS open FROM pg_stat_activity WHERE application_name = 'svc-guard-test'",
    });
    expect(connections?.open).toBeLessThanOrEqual(POOL_SIZE);
  }, 60_000);

  it("gives up on a statement 1 s past its statement timeout, which a frozen server cannot enforce", async () => {
    const web = createDb({ databaseUrl: server.databaseUrl, poolSize: 2, statementTimeoutMs: 100 });
    try {
      await querySql(web, { text: "SELECT 1" });
      const thaw = await freezePostgres(dataDir);
      try {
        const call = await timed(() => querySql(web, { text: "SELECT 1" }));
        expect(isDatabaseUnavailable(call.error), String(call.error)).toBe(true);
        // The statement deadline (1.1 s) ends it before the stall probe could (1 s + its own 2 s).
        expect(call.ms).toBeLessThan(2_000);
        expect(isDatabaseStalled(web)).toBe(true);
      } finally {
        thaw();
      }
    } finally {
      await web.$disconnect();
    }
  }, 30_000);
});
