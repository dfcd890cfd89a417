import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testing";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

/** Every table schema.prisma maps a model to. */
function schemaTables(): string[] {
  const schema = readFileSync(new URL("../../../prisma/schema.prisma", import.meta.url), "utf8");
  return [...schema.matchAll(/^\s*@@map\("([^"]+)"\)/gm)].map((match) => match[1] ?? "");
}

describe("a freshly migrated database", () => {
  it("has the built-in default pair as id 1", async () => {
    const pair = await database.db.connectorCredentialPair.findUniqueOrThrow({
      where: { id: 1 },
      include: { connector: true, credential: true },
    });
    expect(pair).toMatchObject({
      id: 1,
      name: "DefaultCCPair",
      accessType: "public",
      status: "ACTIVE",
      connector: { id: 1, name: "DefaultConnector", source: "ingestion_api" },
      credential: { id: 1, source: "ingestion_api" },
    });
  });

  it("gives the next connector, credential and pair id 2", async () => {
    const pair = await database.db.connectorCredentialPair.create({
      data: {
        name: "Second",
        accessType: "private",
        connector: { create: { name: "Second connector", source: "file" } },
        credential: { create: { source: "file" } },
      },
    });
    expect([pair.id, pair.connectorId, pair.credentialId]).toEqual([2, 2, 2]);
  });

  it("has a table for every model in schema.prisma", async () => {
    const expected = schemaTables();
    expect(expected.length).toBeGreaterThan(10);
    const rows = await database.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    expect(rows.map((row) => row.table_name)).toEqual(expect.arrayContaining([...expected, "_prisma_migrations"]));
  });

  it("keeps no tsvector on document_chunk (search reads the LanceDB index) and has one search_index_identity row", async () => {
    const columns = await database.db.$queryRaw<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'document_chunk'`;
    expect(columns.map((row) => row.column_name)).not.toContain("search_vector");
    const identities = await database.db.searchIndexIdentity.findMany();
    expect(identities).toEqual([{ id: true, databaseId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, createdAt: expect.any(Date) as unknown }]);
    await expect(database.db.$executeRaw`INSERT INTO search_index_identity (id) VALUES (false)`).rejects.toThrow();
  });

  it("has index generation 1 as the current one, and allows one current and one building generation at most", async () => {
    const db = database.db;
    expect(await db.indexGeneration.findMany({ select: { id: true, status: true, activeStatus: true, chunkTokenLimit: true, textSearchConfig: true } })).toEqual([
      { id: 1, status: "current", activeStatus: "current", chunkTokenLimit: 512, textSearchConfig: "english" },
    ]);
    await expect(db.indexGeneration.create({ data: { status: "current" } })).rejects.toThrow();
    const building = await db.indexGeneration.create({ data: { status: "building" } });
    expect(building).toMatchObject({ status: "building", activeStatus: "building" });
    await expect(db.indexGeneration.create({ data: { status: "building" } })).rejects.toThrow();
    // Retired and canceled generations leave their slot (the trigger clears active_status).
    await db.indexGeneration.update({ where: { id: building.id }, data: { status: "canceled" } });
    expect(await db.indexGeneration.findUniqueOrThrow({ where: { id: building.id } })).toMatchObject({ activeStatus: null });
    expect(await db.indexGeneration.create({ data: { status: "building" } })).toMatchObject({ activeStatus: "building" });
    // An attempt belongs to the current generation unless told otherwise.
    const attempt = await db.indexAttempt.create({ data: { ccPairId: 1 } });
    expect(attempt.generationId).toBe(1);
  });

  it("records every migration as applied", async () => {
    const applied = await database.db.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    expect(applied.map((row) => row.migration_name)).toContainEqual(expect.stringMatching(/_init$/));
  });
});
