// A key's "last used" on a real PostgreSQL: written in the background, at most once a minute per key
// (per process, and across processes through the statement's own condition), never failing a request.
import { createDb } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKey } from "../testing/factories";
import { authenticateApiKey } from "./authenticate-api-key";
import { listApiKeys } from "./manage-api-keys";
import { ApiKeyUseRecorder } from "./record-api-key-use";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

async function lastUsedOf(name: string): Promise<Date | null> {
  const key = (await listApiKeys({ db: database.db })).find((row) => row.name === name);
  if (!key) throw new Error(`no key ${name}`);
  return key.lastUsedAt;
}

describe("ApiKeyUseRecorder", () => {
  it("stamps a key on its first use, then at most once a minute", async () => {
    const secret = await createTestKey(database.db, "admin", [], "busy key");
    let clock = 1_000_000;
    const uses = new ApiKeyUseRecorder(database.db, { now: () => clock });
    expect(await lastUsedOf("busy key")).toBeNull();

    await authenticateApiKey({ db: database.db, authorization: `Bearer ${secret}`, uses });
    await uses.flush();
    const first = await lastUsedOf("busy key");
    expect(first).toBeInstanceOf(Date);

    // Within the minute: noted nowhere, written never (the stamp stays put).
    await database.db.apiKey.updateMany({ where: { name: "busy key" }, data: { lastUsedAt: new Date(Date.now() - 120_000) } });
    const backdated = await lastUsedOf("busy key");
    clock += 59_000;
    for (let call = 0; call < 20; call += 1) await authenticateApiKey({ db: database.db, authorization: `Bearer ${secret}`, uses });
    await uses.flush();
    expect(await lastUsedOf("busy key")).toEqual(backdated);

    // A minute later the next use moves it.
    clock += 2_000;
    await authenticateApiKey({ db: database.db, authorization: `Bearer ${secret}`, uses });
    await uses.flush();
    expect((await lastUsedOf("busy key"))!.getTime()).toBeGreaterThan(backdated!.getTime());
  });

  it("does not stamp a key another process stamped within the minute", async () => {
    const secret = await createTestKey(database.db, "curator", [], "shared key");
    const stamped = new Date(Date.now() - 10_000);
    await database.db.apiKey.updateMany({ where: { name: "shared key" }, data: { lastUsedAt: stamped } });
    const uses = new ApiKeyUseRecorder(database.db);
    await authenticateApiKey({ db: database.db, authorization: `Bearer ${secret}`, uses });
    await uses.flush();
    expect(await lastUsedOf("shared key")).toEqual(stamped);
  });

  it("notes a use without waiting for the database, and a failed write fails no request", async () => {
    const secret = await createTestKey(database.db, "admin", [], "offline key");
    const principal = await authenticateApiKey({ db: database.db, authorization: `Bearer ${secret}` });
    // A database that refuses every statement: record() returns at once, the write fails in the background.
    const unreachable = createDb({ databaseUrl: "postgres://nobody@127.0.0.1:1/none", poolSize: 1 });
    const errors: unknown[] = [];
    const uses = new ApiKeyUseRecorder(unreachable, { onError: (error) => errors.push(error) });
    try {
      expect(uses.record(principal.apiKeyId)).toBeUndefined();
      await uses.flush();
      expect(errors).toHaveLength(1);
      // The failed write is forgotten, so the next use tries again rather than waiting a minute.
      uses.record(principal.apiKeyId);
      await uses.flush();
      expect(errors).toHaveLength(2);
    } finally {
      await unreachable.$disconnect();
    }
    expect(await lastUsedOf("offline key")).toBeNull();
  });
});
