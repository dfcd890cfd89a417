import { createDb, type Db } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import {
  closeSearchIndex,
  createGenerationTable,
  openGenerationTable,
  openSearchIndex,
  optimizeGenerationTable,
  replaceDocuments,
  type GenerationTable,
  type SearchIndex,
} from "@svc/search-index";
import { chunkRow, openTempSearchIndex } from "@svc/search-index/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advisoryTableGates } from "./advisory-table-gates";

// Two handles on one index directory, each with gates on a pool of its own, stand for two processes:
// the worker writing and the maintenance process compacting (a WriteGate alone would not see the other).
let database: TestDatabase;
let dir: string;
let removeDir: () => Promise<void>;
const pools: Db[] = [];
const handles: SearchIndex[] = [];

async function processHandle(): Promise<SearchIndex> {
  const db = createDb({ databaseUrl: database.databaseUrl, poolSize: 4 });
  pools.push(db);
  const index = await openSearchIndex({ uri: dir, gates: advisoryTableGates(db, dir) });
  handles.push(index);
  return index;
}

beforeAll(async () => {
  database = await createTestDatabase();
  ({ dir, remove: removeDir } = await openTempSearchIndex());
});

afterAll(async () => {
  for (const index of handles) closeSearchIndex(index);
  for (const db of pools) await db.$disconnect();
  await removeDir();
  await database.drop();
});

const CHUNKS = 4;
const chunksOf = (documentId: string, words: string) =>
  Array.from({ length: CHUNKS }, (_, chunkIndex) => chunkRow(documentId, `${words} ${"filler ".repeat(20)}`, { chunkIndex }));

/** Settles with "held" when `promise` has not settled within `ms`. */
const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => "settled"), new Promise((resolve) => setTimeout(() => resolve("held"), ms))]);

describe("advisoryTableGates", () => {
  let writer: GenerationTable;
  let compactor: GenerationTable;

  beforeAll(async () => {
    writer = await createGenerationTable({ index: await processHandle(), generationId: 1, textSearchConfig: "english" });
    for (let n = 0; n < 200; n++) await replaceDocuments({ generation: writer, documentIds: [`doc-${n}`], chunks: chunksOf(`doc-${n}`, "omega") });
    compactor = (await openGenerationTable({ index: await processHandle(), generationId: 1 }))!;
  });

  it("holds another process's updating write while a compaction runs, and a compaction while a write is in flight", async () => {
    let endCompaction!: () => void;
    const compaction = compactor.gate.alone(() => new Promise<void>((resolve) => (endCompaction = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const write = replaceDocuments({ generation: writer, documentIds: ["doc-1"], chunks: chunksOf("doc-1", "held") });
    expect(await settledWithin(write, 1_000)).toBe("held");
    endCompaction();
    await compaction;
    await write;

    let endWrite!: () => void;
    const inFlight = writer.gate.write(() => new Promise<void>((resolve) => (endWrite = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const compacting = compactor.gate.alone(() => Promise.resolve());
    expect(await settledWithin(compacting, 1_000)).toBe("held");
    endWrite();
    await Promise.all([inFlight, compacting]);
  });

  it("compacts in one process under a steady stream of another's updates, losing and doubling no row", async () => {
    let done = false;
    const compaction = optimizeGenerationTable({ generation: compactor, pruneOlderThan: new Date() }).finally(() => (done = true));
    let updates = 0;
    for (let n = 0; !done; n++) {
      const documentId = `doc-${(n * 7_919) % 200}`;
      await replaceDocuments({ generation: writer, documentIds: [documentId], chunks: chunksOf(documentId, `omega update${n}`) });
      updates++;
    }
    const { fragmentsRemoved } = await compaction;
    expect(fragmentsRemoved).toBeGreaterThan(0);
    expect(updates).toBeGreaterThan(0);
    const rows = (await writer.table.query().select(["chunk_id"]).toArray()) as { chunk_id: string }[];
    expect(rows).toHaveLength(200 * CHUNKS);
    expect(new Set(rows.map((row) => row.chunk_id)).size).toBe(200 * CHUNKS);
  });
});
