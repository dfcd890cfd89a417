import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { querySql, withSqlTransaction } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

const SETTINGS = "SELECT current_setting('plan_cache_mode') AS plan_cache_mode, current_setting('jit') AS jit";
interface Settings {
  plan_cache_mode: string;
  jit: string;
}

describe("createDb's connections", () => {
  it("plan every statement with its arguments and never JIT-compile, on the raw pool and through Prisma alike", async () => {
    const { db } = database;
    // Several connections at once, so that more than the first one is checked.
    const modes = await Promise.all([
      ...Array.from({ length: 3 }, () => withSqlTransaction(db, async (sql) => (await sql.query<Settings>(SETTINGS)).rows[0])),
      querySql<Settings & Record<string, unknown>>(db, { text: SETTINGS }).then((rows) => rows[0]),
      db.$queryRawUnsafe<Settings[]>(SETTINGS).then((rows) => rows[0]),
    ]);
    expect(modes).toEqual(Array(5).fill({ plan_cache_mode: "force_custom_plan", jit: "off" }));
  });
});
