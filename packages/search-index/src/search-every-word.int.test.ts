import { beforeAll, describe, expect, it } from "vitest";
import type { GenerationTable } from "./generation-table";
import { optimizeGenerationTable } from "./optimize-generation-table";
import { replaceDocuments } from "./replace-documents";
import { searchDocuments } from "./search-documents";
import { chunkRow, useTempSearchIndex } from "./testing/temp-search-index";

const temp = useTempSearchIndex();

async function ids(generation: GenerationTable, query: string): Promise<string[]> {
  return (await searchDocuments({ generation, query, match: "all", limit: 10, access: { all: true } })).map((hit) => hit.documentId).sort();
}

/** Made-up words, as the benchmark's corpus has: no stop word among them, none stems into another. */
const word = (seed: string, i: number) => `zq${seed}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}vok`;
const INDEXED = Array.from({ length: 20 }, (_, i) => word("x", i));
/** Words no row holds: the index has no posting for them at all. */
const ABSENT = Array.from({ length: 18 }, (_, i) => word("y", i));

/** `all` holds every INDEXED word, `five` and `two` the first five and two, `single-i` word i alone. */
const CHUNKS = [
  chunkRow("all", INDEXED.join(" ")),
  chunkRow("five", `${INDEXED.slice(0, 5).join(" ")} filler`),
  chunkRow("two", `${INDEXED.slice(0, 2).join(" ")} filler`),
  ...INDEXED.map((w, i) => chunkRow(`single-${i}`, `${w} other`)),
];

describe.each([
  { rows: "merged", merge: true },
  { rows: "not yet merged", merge: false },
])("every query word must match, on $rows rows", ({ merge }) => {
  let generation: GenerationTable;
  beforeAll(async () => {
    generation = await temp.newGeneration();
    await replaceDocuments({ generation, documentIds: CHUNKS.map((c) => c.documentId), chunks: CHUNKS });
    if (merge) await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    expect((await generation.table.indexStats("text_idx"))?.numUnindexedRows).toBe(merge ? 0 : CHUNKS.length);
  });

  it("returns only chunks holding all of 2, 5 or 20 words", async () => {
    expect(await ids(generation, INDEXED.join(" "))).toEqual(["all"]);
    expect(await ids(generation, INDEXED.slice(0, 5).join(" "))).toEqual(["all", "five"]);
    expect(await ids(generation, INDEXED.slice(0, 2).join(" "))).toEqual(["all", "five", "two"]);
    expect(await ids(generation, `${INDEXED[3]} ${INDEXED[17]}`)).toEqual(["all"]);
  });

  it("returns nothing when a query word is in no row, however many of the others a chunk holds", async () => {
    expect(await ids(generation, [...INDEXED.slice(0, 2), ...ABSENT].join(" "))).toEqual([]);
    expect(await ids(generation, [...INDEXED.slice(0, 2), ...ABSENT.slice(0, 3)].join(" "))).toEqual([]);
    expect(await ids(generation, `${INDEXED[0]} ${ABSENT[0]}`)).toEqual([]);
    expect(await ids(generation, [...INDEXED, ABSENT[0]].join(" "))).toEqual([]);
  });
});

describe("every query word must match, on rows merged after the rest", () => {
  it("does not return a chunk merged on its own that holds only some of the words the table has", async () => {
    // As the worker merges: the table's rows first, then one written later and merged alone. Its
    // words form their own part of the index, which holds no posting for the other query words.
    const generation = await temp.newGeneration();
    const base = [chunkRow("all", INDEXED.join(" ")), ...INDEXED.map((w, i) => chunkRow(`single-${i}`, `${w} other`))];
    await replaceDocuments({ generation, documentIds: base.map((c) => c.documentId), chunks: base });
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    const late = [chunkRow("late-two", Array.from({ length: 10 }, () => `${INDEXED[0]} ${INDEXED[1]}`).join(" "))];
    await replaceDocuments({ generation, documentIds: ["late-two"], chunks: late });
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    expect((await generation.table.indexStats("text_idx"))?.numUnindexedRows).toBe(0);

    expect(await ids(generation, INDEXED.join(" "))).toEqual(["all"]);
    expect(await ids(generation, INDEXED.slice(0, 5).join(" "))).toEqual(["all"]);
    expect(await ids(generation, INDEXED.slice(0, 2).join(" "))).toEqual(["all", "late-two"]);
  });
});
