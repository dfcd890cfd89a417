import { beforeAll, describe, expect, it } from "vitest";
import type { SearchAccess } from "./build-search-filter";
import type { GenerationTable } from "./generation-table";
import { optimizeGenerationTable } from "./optimize-generation-table";
import { replaceDocuments } from "./replace-documents";
import { sampleCommonWords } from "./common-words";
import { searchDocuments, type SearchMatch } from "./search-documents";
import { chunkRow, useTempSearchIndex } from "./testing/temp-search-index";
import type { ChunkRow } from "./chunk-row";

const temp = useTempSearchIndex();
const ALL: SearchAccess = { all: true };

async function generationWith(chunks: ChunkRow[], merge = true): Promise<GenerationTable> {
  const generation = await temp.newGeneration();
  await replaceDocuments({ generation, documentIds: [...new Set(chunks.map((c) => c.documentId))], chunks });
  if (merge) await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
  return generation;
}

async function ids(generation: GenerationTable, query: string, { match, access = ALL, limit = 10 }: { match?: SearchMatch; access?: SearchAccess; limit?: number } = {}) {
  return (await searchDocuments({ generation, query, match, limit, access })).map((hit) => hit.documentId);
}

const filler = (count: number, seed: string) => Array.from({ length: count }, (_, i) => `${seed}${i}`).join(" ");

describe("a query's words match any (the default), ranked by BM25", () => {
  let generation: GenerationTable;
  beforeAll(async () => {
    // "wombat" is rare (2 rows), "burrow" and "night" common (every "common-" row holds them).
    generation = await generationWith([
      chunkRow("three", `wombat burrow night ${filler(20, "a")}`),
      chunkRow("rare-one", `wombat ${filler(22, "b")}`),
      chunkRow("two-common", `burrow night ${filler(21, "c")}`),
      ...Array.from({ length: 20 }, (_, i) => chunkRow(`common-${i}`, `burrow ${filler(22, `d${i}x`)} night`)),
      chunkRow("none", `kangaroo ${filler(22, "e")}`),
    ]);
  });

  it("returns a question's documents ranked by how many of its words, and how rare, they hold", async () => {
    const page = await ids(generation, "where does the wombat dig its burrow at night", { limit: 25 });
    // All three words first, then the rare word alone above two common ones, then the common rows.
    expect(page.slice(0, 3)).toEqual(["three", "rare-one", "two-common"]);
    expect(page).toHaveLength(23);
    expect(page).not.toContain("none");
    // The old meaning, every word required, finds only the one row holding all three.
    expect(await ids(generation, "wombat burrow night", { match: "all" })).toEqual(["three"]);
  });

  it("ranks first the best document for a question holding all its words but one", async () => {
    const best = await generationWith([
      chunkRow("best", "how to renew a passport before travelling abroad"),
      chunkRow("partial", `passport photo booth ${filler(10, "p")}`),
      chunkRow("other", `travelling circus ${filler(10, "q")}`),
    ]);
    // "expired" is in no document: with `all` nothing would match.
    expect((await ids(best, "how do I renew an expired passport for travelling"))[0]).toBe("best");
    expect(await ids(best, "renew expired passport travelling", { match: "all" })).toEqual([]);
  });

  it("requires a quoted phrase and excludes -words and -phrases, on merged rows and on rows not yet merged", async () => {
    const rows = [
      chunkRow("phrase", "the wombat burrow is deep"),
      chunkRow("apart", "burrow of a wombat"),
      chunkRow("excluded", "wombat burrow with a broken gate"),
    ];
    for (const merge of [true, false]) {
      const table = await generationWith(rows, merge);
      expect((await ids(table, 'deep "wombat burrow"')).sort()).toEqual(["excluded", "phrase"]);
      expect((await ids(table, 'deep "wombat burrow"'))[0]).toBe("phrase");
      expect((await ids(table, "wombat deep -broken")).sort()).toEqual(["apart", "phrase"]);
      expect(await ids(table, 'wombat -"broken gate" -deep')).toEqual(["apart"]);
      expect(await ids(table, "-wombat")).toEqual([]);
      expect(await ids(table, "the of and")).toEqual([]);
    }
  });

  it("matches a misspelled word to the index's terms, below exact matches, and leaves a word spelled right alone", async () => {
    const typos = await generationWith([
      chunkRow("platypus", `the platypus lays eggs ${filler(10, "f")}`),
      chunkRow("venom", `the platypus male has venom spurs ${filler(8, "g")}`),
      chunkRow("cart", `a shopping cart ${filler(10, "h")}`),
      chunkRow("card", `a greeting card ${filler(10, "i")}`),
      chunkRow("kinetic", `kinetic theory of gases ${filler(10, "j")}`),
    ]);
    // One edit for a word of fewer than eight letters, two for a longer one.
    expect(await ids(typos, "platpus")).toEqual(expect.arrayContaining(["platypus", "venom"]));
    expect((await ids(typos, "platypus vemom"))[0]).toBe("venom");
    expect(await ids(typos, "plattipus")).toHaveLength(2);
    // "kinecic" escapes the stemmer, three edits from the index's term `kinet`; cut, "kinec" is one.
    expect(await ids(typos, "kinecic")).toEqual(["kinetic"]);
    // "venom" is typed right in the second query: the exact match outranks a near one.
    const page = await searchDocuments({ generation: typos, query: "venum eggs", limit: 10, access: ALL });
    expect(page.map((hit) => hit.documentId)).toEqual(["platypus", "venom"]);
    expect(page[1]?.chunks[0]?.snippet).toContain("<mark>venom</mark>");
    // A word the index holds is never widened to its neighbours ("cart" is one edit from "card").
    expect(await ids(typos, "cart")).toEqual(["cart"]);
    // `all` keeps a misspelled word unmatched.
    expect(await ids(typos, "platpus", { match: "all" })).toEqual([]);
  });

  it("fills a restricted caller's page with its own documents when another pair's hold more of the words", async () => {
    const scoped = await generationWith([
      ...Array.from({ length: 60 }, (_, i) => chunkRow(`other-${i}`, "marsupial pouch joey", { ccPairIds: [2], isPublic: null })),
      ...Array.from({ length: 5 }, (_, i) => chunkRow(`mine-${i}`, `pouch ${filler(30 + i, "m")}`, { ccPairIds: [1], isPublic: null })),
    ]);
    const access: SearchAccess = { publicPairIds: [], visiblePairIds: [1], email: null, groups: [] };
    expect(await ids(scoped, "marsupial pouch joey", { access, limit: 5 })).toEqual(["mine-0", "mine-1", "mine-2", "mine-3", "mine-4"]);
    expect((await ids(scoped, "marsupial pouch joey", { limit: 5 })).every((id) => id.startsWith("other-"))).toBe(true);
  });

  it("marks only the matched words, in the chunk's best window for them", async () => {
    const long = await generationWith([
      chunkRow("long", `wombat ${filler(60, "w")} wombat burrow night ${filler(60, "x")}`, { title: "Wombat notes" }),
    ]);
    const [hit] = await searchDocuments({ generation: long, query: "wombat burrow night owl", limit: 1, access: ALL });
    const snippet = hit?.chunks[0]?.snippet ?? "";
    expect(snippet.startsWith("... ")).toBe(true);
    expect(snippet).toContain("<mark>wombat</mark> <mark>burrow</mark> <mark>night</mark>");
    expect(snippet.match(/<mark>/g)).toHaveLength(3);
  });
});

describe("a query whose words are all common in the table requires them all (the common-terms rule)", () => {
  it("requires every common word, keeps the OR once a word is not common, and waits for no sample", async () => {
    // 10,000 rows (the rule's least): "harbour" in each, "ferry" in the even ones, "quay" in the odd
    // ones, so no row holds both; "lighthouse" in one row only.
    const rows = Array.from({ length: 10_000 }, (_, i) => chunkRow(`row-${i}`, `harbour ${i % 2 === 0 ? "ferry" : "quay"} ${filler(2, `w${i}x`)}`));
    rows.push(chunkRow("lighthouse", "a lighthouse by the harbour"));
    const generation = await generationWith(rows);
    // Before the table's words are sampled, a search does not wait for the sample: the words are OR-ed.
    expect(await ids(generation, "ferry quay")).toHaveLength(10);
    await sampleCommonWords(generation);
    // Now both words are common: they are required together, and no row holds both, as with `all`.
    expect(await ids(generation, "ferry quay")).toEqual([]);
    expect(await ids(generation, "ferry quay", { match: "all" })).toEqual([]);
    const both = await ids(generation, "harbour ferry");
    expect(both).toHaveLength(10);
    expect(both.every((id) => Number(id.slice("row-".length)) % 2 === 0)).toBe(true);
    // One word that is not common: the OR of all the words, the rare word's row first.
    const mixed = await ids(generation, "lighthouse ferry quay");
    expect(mixed[0]).toBe("lighthouse");
    expect(mixed).toHaveLength(10);
    // One common word alone is what it was.
    expect(await ids(generation, "quay")).toHaveLength(10);
  }, 120_000);
});
