import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, querySql } from "./client";
import { isDatabaseUnavailable, isQueryCanceled } from "./is-database-unavailable";
import { createTestDatabase, findFreePort, type TestDatabase } from "./testing";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

/** What `work` threw (the tests below need real errors from pg and Prisma, not look-alikes). */
async function thrownBy(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("isDatabaseUnavailable", () => {
  it("recognises a server that refuses connections, through pg and through Prisma", async () => {
    const nobodyListens = createDb({ databaseUrl: `postgres://postgres@127.0.0.1:${await findFreePort()}/postgres`, poolSize: 1 });
    try {
      expect(isDatabaseUnavailable(await thrownBy(() => querySql(nobodyListens, { text: "SELECT 1" })))).toBe(true);
      expect(isDatabaseUnavailable(await thrownBy(() => nobodyListens.$queryRaw`SELECT 1`))).toBe(true);
      expect(isDatabaseUnavailable(await thrownBy(() => nobodyListens.apiKey.findFirst()))).toBe(true);
    } finally {
      await nobodyListens.$disconnect();
    }
  });

  it("recognises a connection the server terminates (as a restart does)", async () => {
    const client = new pg.Client({ connectionString: database.databaseUrl });
    client.on("error", () => undefined);
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await querySql(database.db, { text: "SELECT pg_terminate_backend($1)", values: [rows[0]?.pid] });
      expect(isDatabaseUnavailable(await thrownBy(() => client.query("SELECT 1")))).toBe(true);
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  it("recognises a checkout past its deadline, also as pg-boss reports a failed poll (queue and worker appended)", async () => {
    const pool = new pg.Pool({ connectionString: database.databaseUrl, max: 1, connectionTimeoutMillis: 100 });
    const held = await pool.connect();
    try {
      const timedOut = await thrownBy(() => pool.connect());
      expect(isDatabaseUnavailable(timedOut)).toBe(true);
      // pg-boss's worker rewrites the message of a failed fetch in place (dist/worker.js).
      (timedOut as Error).message += " (Queue: index-document, Worker: 3dd69f2a)";
      expect(isDatabaseUnavailable(timedOut)).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it("leaves faults of the statement alone", async () => {
    expect(isDatabaseUnavailable(await thrownBy(() => querySql(database.db, { text: "SELEC 1" })))).toBe(false);
    expect(isDatabaseUnavailable(await thrownBy(() => database.db.$queryRaw`SELECT 1/0`))).toBe(false);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe("isQueryCanceled", () => {
  it("recognises a statement stopped by the pool's statement timeout, through pg and through Prisma, and nothing else", async () => {
    const bounded = createDb({ databaseUrl: database.databaseUrl, poolSize: 1, statementTimeoutMs: 50 });
    try {
      // A slow statement of any shape; a cross join of series stands in for a client-shaped query.
      const slow = "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b";
      const fromPg = await thrownBy(() => querySql(bounded, { text: slow }));
      expect(isQueryCanceled(fromPg)).toBe(true);
      expect(isDatabaseUnavailable(fromPg)).toBe(false);
      expect(isQueryCanceled(await thrownBy(() => bounded.$queryRawUnsafe(slow)))).toBe(true);
      expect(isQueryCanceled(await thrownBy(() => querySql(bounded, { text: "SELECT 1/0" })))).toBe(false);
    } finally {
      await bounded.$disconnect();
    }
  });

  it("leaves pools created without a timeout unbounded (the worker, migrations)", async () => {
    const unbounded = createDb({ databaseUrl: database.databaseUrl, poolSize: 1 });
    try {
      expect(await querySql<{ statement_timeout: string }>(unbounded, { text: "SHOW statement_timeout" })).toEqual([{ statement_timeout: "0" }]);
    } finally {
      await unbounded.$disconnect();
    }
  });
});
