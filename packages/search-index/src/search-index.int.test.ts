import { describe, expect, it } from "vitest";
import { buildSearchFilter, type SearchAccess } from "./build-search-filter";
import type { ChunkRow } from "./chunk-row";
import { createGenerationTable } from "./create-generation-table";
import { deleteDocuments } from "./delete-documents";
import { dropGenerationTable } from "./drop-generation-table";
import type { GenerationTable } from "./generation-table";
import { openGenerationTable } from "./open-generation-table";
import { closeSearchIndex, openSearchIndex, type SearchIndex } from "./open-search-index";
import { mergeGenerationTable, optimizeGenerationTable, refreshKeyIndexes } from "./optimize-generation-table";
import { appendDocuments, replaceDocuments } from "./replace-documents";
import { searchDocuments } from "./search-documents";
import { SearchIndexError } from "./search-index-error";
import { chunkRow, useTempSearchIndex } from "./testing/temp-search-index";

const ALL: SearchAccess = { all: true };
const temp = useTempSearchIndex();

/**
 * A new generation table for one test, filled with `chunks` in one replace batch and then merged into
 * its indexes, as a rebuild leaves a generation before it becomes current.
 */
async function generationWith(chunks: ChunkRow[], textSearchConfig = "english"): Promise<GenerationTable> {
  const generation = await temp.newGeneration(textSearchConfig);
  await replaceDocuments({ generation, documentIds: [...new Set(chunks.map((c) => c.documentId))], chunks });
  await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
  return generation;
}

async function ids(generation: GenerationTable, query: string, access: SearchAccess = ALL, limit = 10, filter = null as Parameters<typeof searchDocuments>[0]["filter"]) {
  return (await searchDocuments({ generation, query, limit, access, filter })).map((hit) => hit.documentId);
}

/** ids with every bare word required (`match: "all"`), the syntax's original meaning. */
async function allWordIds(generation: GenerationTable, query: string) {
  return (await searchDocuments({ generation, query, match: "all", limit: 10, access: ALL })).map((hit) => hit.documentId);
}

/** The chunk ids of the table's rows (of those matching `where`), sorted. */
async function chunkIds(generation: GenerationTable, where = "true"): Promise<string[]> {
  const rows = (await generation.table.query().where(where).select(["chunk_id"]).toArray()) as { chunk_id: string }[];
  return rows.map((row) => row.chunk_id).sort();
}

const filler = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(" ");

describe("ranking and query syntax", () => {
  it("ranks first a document dominated by the query words, added last", async () => {
    const generation = await generationWith(
      Array.from({ length: 40 }, (_, i) => chunkRow(`doc-${i}`, `${filler(60, "f")} alpha ${filler(20, "g")} beta`)),
    );
    await replaceDocuments({ generation, documentIds: ["dominated"], chunks: [chunkRow("dominated", "alpha beta alpha beta alpha")] });
    // Exact ranking of rows not yet merged is LanceDB's weak spot (README): the worker's optimize merges them.
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    const hits = await searchDocuments({ generation, query: "alpha beta", limit: 10, access: ALL });
    expect(hits).toHaveLength(10);
    expect(hits[0]?.documentId).toBe("dominated");
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Infinity);
  });

  it("ranks exactly across index parts merged one at a time, as the worker merges a push stream", async () => {
    // Each merge adds a part to the FTS index. LanceDB 0.31 pruned the top-k across parts with each
    // part's own statistics and dropped the best document (lance-format/lance#7467); 0.39 ranks exactly.
    const generation = await generationWith([chunkRow("seed", "seed words")]);
    const add = async (id: string, text: string) => {
      await replaceDocuments({ generation, documentIds: [id], chunks: [chunkRow(id, text)] });
      await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    };
    for (let i = 0; i < 40; i += 1) await add(`noise-${i}`, `${filler(60, "n")} vizier ${i}`);
    for (let i = 0; i < 30; i += 1) await add(`part-${i}`, `${filler(60, "f")} plinthos ${filler(60, "g")} corvane`);
    await add("dominated", "plinthos corvane plinthos corvane plinthos");
    for (let run = 0; run < 20; run += 1) expect((await ids(generation, "plinthos corvane"))[0]).toBe("dominated");
    // 71 merges, each rebuilding the table's indexes: ~5 s alone, several times that beside a loaded CI run.
  }, 180_000);

  it("finds rows written after the index was built before any merge (words, AND, exclusions, a phrase)", async () => {
    const generation = await generationWith([chunkRow("old", "nothing to see")]);
    await replaceDocuments({
      generation,
      documentIds: ["fresh-both", "fresh-one", "fresh-excluded"],
      chunks: [
        chunkRow("fresh-both", "xylophone quartet tuned"),
        chunkRow("fresh-one", "xylophone solo"),
        chunkRow("fresh-excluded", "xylophone quartet broken"),
      ],
    });
    expect((await generation.table.indexStats("text_idx"))?.numUnindexedRows).toBe(3);
    expect((await allWordIds(generation, "xylophone")).sort()).toEqual(["fresh-both", "fresh-excluded", "fresh-one"]);
    expect((await allWordIds(generation, "xylophone quartet")).sort()).toEqual(["fresh-both", "fresh-excluded"]);
    expect(await allWordIds(generation, "xylophone quartet -broken")).toEqual(["fresh-both"]);
    expect(await allWordIds(generation, "tuned broken")).toEqual([]);
    expect(await allWordIds(generation, '"quartet tuned"')).toEqual(["fresh-both"]);
    // LanceDB 0.31 matched phrases in merged rows only; 0.39 finds them before the merge too.
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    expect(await allWordIds(generation, '"quartet tuned"')).toEqual(["fresh-both"]);
  });

  it("needs every word (AND), matches quoted phrases in order, excludes -words, and stems", async () => {
    const generation = await generationWith([
      chunkRow("both", "the quick brown fox"),
      chunkRow("only-quick", "quick silver"),
      chunkRow("reversed", "brown quick"),
      chunkRow("stemmed", "foxes were searching"),
    ]);
    expect((await allWordIds(generation, "quick brown")).sort()).toEqual(["both", "reversed"]);
    expect(await allWordIds(generation, '"quick brown"')).toEqual(["both"]);
    expect(await allWordIds(generation, "quick -fox")).not.toContain("both");
    expect((await allWordIds(generation, "quick -fox")).sort()).toEqual(["only-quick", "reversed"]);
    expect(await allWordIds(generation, 'quick -"brown fox"')).not.toContain("both");
    expect(await allWordIds(generation, "search fox")).toEqual(["stemmed"]);
    expect(await allWordIds(generation, "-quick")).toEqual([]);
  });

  it("ranks a phrase query exactly, whether its candidate pass fills the page or the exact query runs", async () => {
    // phrase-i holds "alpha beta" once and "alpha" i more times in 59 words: the higher i, the better.
    // The 40 decoys hold both words more often, never in that order, and outrank every phrase-i; they
    // also hold "gamma", so "gamma" plus the phrase is the bare-word-and-phrase form. The 120 weak rows
    // hold each word once, apart, in 80 words: below every phrase-i.
    const generation = await generationWith([
      ...Array.from({ length: 12 }, (_, i) => chunkRow(`phrase-${i}`, `alpha beta gamma ${"alpha ".repeat(i)}${filler(56 - i, "p")}`)),
      ...Array.from({ length: 50 }, (_, i) => chunkRow(`decoy-${i}`, `${"beta alpha gamma ".repeat(8)}${filler(36, "d")}`)),
      ...Array.from({ length: 120 }, (_, i) => chunkRow(`weak-${i}`, `beta ${filler(40, "w")} alpha ${filler(38, "v")}`)),
    ]);
    const best = (count: number) => Array.from({ length: count }, (_, i) => `phrase-${11 - i}`);
    // The candidate pass ranks 16 candidates per chunk of the page (3 per document): limit 1 gets 48,
    // all decoys, so the exact query runs; limit 3 gets 144 of the 182 rows, which hold every
    // phrase-i; limit 10 gets them all.
    for (const limit of [1, 3, 10]) {
      expect(await ids(generation, '"alpha beta"', ALL, limit)).toEqual(best(limit));
      expect(await ids(generation, 'gamma "alpha beta"', ALL, limit)).toEqual(best(limit));
      // p50 is in the filler of phrase-0 to phrase-5 only.
      expect(await ids(generation, '"alpha beta" -p50', ALL, limit)).toEqual(best(Math.min(limit, 6)));
    }
    const page = await searchDocuments({ generation, query: '"alpha beta"', limit: 10, access: ALL });
    const scores = page.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // One phrase alone runs LanceDB's PhraseQuery by itself; with an exclusion, the candidate pass
    // (limit 10: its 480 candidates are every row) or the exact query (limit 1: its 48 candidates are
    // all decoys). All three score the same row the same.
    const [candidate] = await searchDocuments({ generation, query: '"alpha beta" -absent', limit: 10, access: ALL });
    const [exact] = await searchDocuments({ generation, query: '"alpha beta" -absent', limit: 1, access: ALL });
    expect(page[0]?.documentId).toBe("phrase-11");
    expect(candidate?.documentId).toBe("phrase-11");
    expect(exact?.documentId).toBe("phrase-11");
    expect(candidate?.score).toBeCloseTo(page[0]?.score ?? 0, 5);
    expect(exact?.score).toBeCloseTo(page[0]?.score ?? 0, 5);
    expect(page[0]?.chunks[0]?.snippet).toContain("<mark>alpha</mark> <mark>beta</mark>");
  });

  it("groups chunks per document: best chunk's score, best three chunks first, snippets escaped and marked", async () => {
    const chunks = [
      chunkRow("many", "gamma <b>gamma</b> gamma & gamma", { chunkIndex: 0, title: "Many" }),
      ...[1, 2, 3, 4].map((i) => chunkRow("many", `gamma ${filler(10 * i, "x")}`, { chunkIndex: i })),
      chunkRow("one", `gamma ${filler(30, "y")}`),
    ];
    const generation = await generationWith(chunks);
    const hits = await searchDocuments({ generation, query: "gamma", limit: 10, access: ALL });
    expect(hits.map((h) => h.documentId)).toEqual(["many", "one"]);
    const many = hits[0];
    expect(many?.title).toBe("Many");
    expect(many?.chunks.map((c) => c.chunkIndex)).toEqual([0, 1, 2]);
    expect(many?.score).toBe(many?.chunks[0]?.score);
    expect(many?.chunks[0]?.snippet).toBe(
      "<mark>gamma</mark> &lt;b&gt;<mark>gamma</mark>&lt;/b&gt; <mark>gamma</mark> &amp; <mark>gamma</mark>",
    );
  });

  it("finds a document's best three chunks even when other documents fill the first chunk page", async () => {
    const generation = await generationWith([
      ...Array.from({ length: 5 }, (_, i) => chunkRow("top", `delta delta delta ${i}`, { chunkIndex: i })),
      chunkRow("weak", `delta ${filler(40, "z")}`, { chunkIndex: 0 }),
      chunkRow("weak", `delta ${filler(50, "z")}`, { chunkIndex: 1 }),
    ]);
    const hits = await searchDocuments({ generation, query: "delta", limit: 2, access: ALL });
    expect(hits.map((h) => [h.documentId, h.chunks.length])).toEqual([
      ["top", 3],
      ["weak", 2],
    ]);
  });

  it("fills the page with distinct documents, in score order, when one document holds all the top chunks", async () => {
    // "big" has 40 chunks that each outrank every other document's; doc-i holds "omega" once in 10 + 10i words.
    const generation = await generationWith([
      ...Array.from({ length: 40 }, (_, i) => chunkRow("big", `omega omega omega ${i}`, { chunkIndex: i })),
      ...Array.from({ length: 4 }, (_, i) => chunkRow(`doc-${i}`, `omega ${filler(10 + 10 * i, "w")}`)),
    ]);
    const hits = await searchDocuments({ generation, query: "omega", limit: 4, access: ALL });
    expect(hits.map((h) => [h.documentId, h.chunks.length])).toEqual([
      ["big", 3],
      ["doc-0", 1],
      ["doc-1", 1],
      ["doc-2", 1],
    ]);
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(hits[0]?.chunks[0]?.snippet).toContain("<mark>omega</mark>");
  });
});

describe("admission", () => {
  it("asks admit about documents in rank order, no more than the page still needs, and fills the page past the ones it drops", async () => {
    // doc-i holds "lambda" i + 1 times in 41 words: doc-29 ranks first.
    const generation = await generationWith(
      Array.from({ length: 30 }, (_, i) => chunkRow(`doc-${i}`, `${"lambda ".repeat(i + 1)}${filler(40 - i, "l")}`)),
    );
    const dropped = new Set(["doc-29", "doc-27", "doc-26"]);
    const asked: string[][] = [];
    const admit = (documentIds: string[]) => {
      asked.push(documentIds);
      return Promise.resolve(new Set(documentIds.filter((id) => !dropped.has(id))));
    };
    const hits = await searchDocuments({ generation, query: "lambda", limit: 3, access: ALL, admit });
    expect(hits.map((hit) => hit.documentId)).toEqual(["doc-28", "doc-25", "doc-24"]);
    expect(asked).toEqual([["doc-29", "doc-28", "doc-27"], ["doc-26", "doc-25"], ["doc-24"]]);
  });
});

describe("access filter", () => {
  it("never shows a restricted caller another pair's chunk, on a page that would otherwise be full of them", async () => {
    const generation = await generationWith([
      ...Array.from({ length: 60 }, (_, i) => chunkRow(`other-${i}`, "secret secret secret", { ccPairIds: [2], isPublic: null })),
      ...Array.from({ length: 3 }, (_, i) => chunkRow(`mine-${i}`, `secret ${filler(40, "m")}`, { ccPairIds: [1], isPublic: null })),
    ]);
    const access: SearchAccess = { publicPairIds: [], visiblePairIds: [1], email: null, groups: [] };
    expect((await ids(generation, "secret", access)).sort()).toEqual(["mine-0", "mine-1", "mine-2"]);
    expect(await ids(generation, "secret", ALL)).toHaveLength(10);
  });

  it("ranks a restricted caller's page exactly, whether the unfiltered ranking holds enough of its documents or not", async () => {
    // doc-i holds "kappa" i + 1 times in 60 words: the higher i, the better it ranks. The caller sees
    // pair 1 only (doc-0 … doc-9); pair 2 holds the 30 best.
    const generation = await generationWith(
      Array.from({ length: 40 }, (_, i) =>
        chunkRow(`doc-${i}`, `${"kappa ".repeat(i + 1)}${filler(59 - i, "k")}`, { ccPairIds: [i < 10 ? 1 : 2], isPublic: null }),
      ),
    );
    const access: SearchAccess = { publicPairIds: [], visiblePairIds: [1], email: null, groups: [] };
    const best = (count: number, from: number) => Array.from({ length: count }, (_, i) => `doc-${from - i}`);
    // 1 and 3: the unfiltered top holds too few of pair 1, so the search prefilters; 10: it holds all.
    for (const limit of [1, 3, 10]) expect(await ids(generation, "kappa", access, limit)).toEqual(best(limit, 9));
    expect(await ids(generation, "kappa", ALL, 3)).toEqual(best(3, 39));
    expect(await ids(generation, "kappa", { ...access, visiblePairIds: [1, 2] }, 12)).toEqual(best(12, 39));
  });

  it("ranks exactly when admission applies the access rule: the first round unfiltered, later rounds prefiltered when it falls short", async () => {
    // As above: doc-i holds "kappa" i + 1 times; pair 1 holds doc-0 … doc-9, pair 2 the 30 best.
    const generation = await generationWith(
      Array.from({ length: 40 }, (_, i) =>
        chunkRow(`doc-${i}`, `${"kappa ".repeat(i + 1)}${filler(59 - i, "k")}`, { ccPairIds: [i < 10 ? 1 : 2], isPublic: null }),
      ),
    );
    const pairOf = (id: string) => (Number(id.slice(4)) < 10 ? 1 : 2);
    /** Searches as a caller who sees `pairs`, with an admission that applies that rule and drops `deleted` too. */
    const search = async (pairs: number[], limit: number, deleted: string[] = []) => {
      const asked: string[][] = [];
      const admit = (documentIds: string[]) => {
        asked.push(documentIds);
        return Promise.resolve(new Set(documentIds.filter((id) => pairs.includes(pairOf(id)) && !deleted.includes(id))));
      };
      const access: SearchAccess = { publicPairIds: [], visiblePairIds: pairs, email: null, groups: [] };
      const hits = await searchDocuments({ generation, query: "kappa", limit, access, admit, admitAppliesAccess: true });
      return { ids: hits.map((hit) => hit.documentId), asked };
    };
    const best = (count: number, from: number) => Array.from({ length: count }, (_, i) => `doc-${from - i}`);
    // Pair 1 alone: the unfiltered first round (limit × 12 chunks) holds none of its documents, so
    // admission drops them all and the search prefilters: the same exact page as without admission.
    for (const limit of [1, 3]) {
      const { ids, asked } = await search([1], limit);
      expect(ids).toEqual(best(limit, 9));
      expect(asked[0]).toEqual(best(2 * limit, 39));
    }
    // Both pairs, two of the best documents dropped: the first round fills the page past them with
    // one call, asking twice what the page still needs.
    const both = await search([1, 2], 3, ["doc-38", "doc-36"]);
    expect(both.ids).toEqual(["doc-39", "doc-37", "doc-35"]);
    expect(both.asked).toEqual([best(6, 39)]);
  });

  it("shows exactly the documents of rules (a) to (e)", async () => {
    const generation = await generationWith([
      chunkRow("a-public-pair", "omega", { isPublic: null, ccPairIds: [10] }),
      chunkRow("a-private-pair", "omega", { isPublic: null, ccPairIds: [11] }),
      chunkRow("a-overridden", "omega", { isPublic: false, ccPairIds: [10] }),
      chunkRow("b-public", "omega", { isPublic: true, ccPairIds: [11] }),
      chunkRow("c-email", "omega", { isPublic: false, ccPairIds: [11], externalUserEmails: ["ann@x.io"] }),
      chunkRow("d-group", "omega", { isPublic: false, ccPairIds: [11], externalUserGroupIds: ["eng"] }),
      chunkRow("e-visible-pair", "omega", { isPublic: false, ccPairIds: [12] }),
    ]);
    const seen = async (access: SearchAccess) => (await ids(generation, "omega", access)).sort();
    const nobody: SearchAccess = { publicPairIds: [10], visiblePairIds: [], email: null, groups: [] };
    expect(await seen(nobody)).toEqual(["a-public-pair", "b-public"]);
    expect(await seen({ ...nobody, email: "ann@x.io" })).toEqual(["a-public-pair", "b-public", "c-email"]);
    expect(await seen({ ...nobody, groups: ["eng"] })).toEqual(["a-public-pair", "b-public", "d-group"]);
    expect(await seen({ ...nobody, visiblePairIds: [12] })).toEqual(["a-public-pair", "b-public", "e-visible-pair"]);
    // A pair that turns public shows at once: the public pairs are an input of the query, not of the rows.
    expect(await seen({ ...nobody, publicPairIds: [10, 11] })).toEqual(["a-private-pair", "a-public-pair", "b-public"]);
    expect(await seen(ALL)).toHaveLength(7);
  });

  it("answers the access rule from the scalar indexes, and filters rows written since the last merge the same", async () => {
    const generation = await generationWith([
      chunkRow("merged-visible", "sigma", { isPublic: null, ccPairIds: [10] }),
      chunkRow("merged-hidden", "sigma", { isPublic: null, ccPairIds: [11] }),
    ]);
    const indexed = (await generation.table.listIndices()).flatMap((config) => config.columns);
    expect(indexed).toEqual(expect.arrayContaining(["is_public", "cc_pair_ids", "external_user_emails", "external_user_group_ids"]));
    await replaceDocuments({
      generation,
      documentIds: ["fresh-visible", "fresh-hidden", "fresh-group"],
      chunks: [
        chunkRow("fresh-visible", "sigma", { isPublic: null, ccPairIds: [10] }),
        chunkRow("fresh-hidden", "sigma", { isPublic: null, ccPairIds: [11] }),
        chunkRow("fresh-group", "sigma", { isPublic: false, ccPairIds: [11], externalUserGroupIds: ["ops"] }),
      ],
    });
    const access: SearchAccess = { publicPairIds: [10], visiblePairIds: [], email: null, groups: ["ops"] };
    const plan = await generation.table.query().where(buildSearchFilter(access, { ccPairIds: [10, 11] }) ?? "").explainPlan();
    expect(plan).toContain("ScalarIndexQuery");
    expect((await ids(generation, "sigma", access)).sort()).toEqual(["fresh-group", "fresh-visible", "merged-visible"]);
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    expect((await ids(generation, "sigma", access)).sort()).toEqual(["fresh-group", "fresh-visible", "merged-visible"]);
  });

  it("takes hostile strings in ids, emails, groups and tags literally", async () => {
    const hostile = ["o'brien", "x') OR TRUE --", "back\\slash\\'", '"double"', "' OR '1'='1"];
    const generation = await generationWith(
      hostile.map((value, i) =>
        chunkRow(`doc ${value}`, "zeta", {
          isPublic: false,
          externalUserEmails: [value],
          externalUserGroupIds: [value],
          tags: [{ key: value, value }],
          source: value,
          ccPairIds: [i],
        }),
      ),
    );
    for (const value of hostile) {
      const only = [`doc ${value}`];
      expect(await ids(generation, "zeta", { publicPairIds: [], visiblePairIds: [], email: value, groups: [] })).toEqual(only);
      expect(await ids(generation, "zeta", { publicPairIds: [], visiblePairIds: [], email: null, groups: [value] })).toEqual(only);
      expect(await ids(generation, "zeta", ALL, 10, { tags: [{ key: value, value }] })).toEqual(only);
      expect(await ids(generation, "zeta", ALL, 10, { sources: [value] })).toEqual(only);
    }
    await deleteDocuments({ generation, documentIds: [`doc ${hostile[1]}`, `doc ${hostile[2]}`] });
    expect(await ids(generation, "zeta")).toHaveLength(hostile.length - 2);
  });
});

describe("query text", () => {
  it("takes quotes, backslashes and operators in the query as text, never as an error", async () => {
    const generation = await generationWith([chunkRow("q", "it's a back\\slash and 'quoted' words")]);
    for (const query of [`it's`, `"it's a`, `back\\slash`, `'quoted'`, `\\`, `"" - -- "`, `AND OR NOT ( ) *`, `'; DROP TABLE x; --`]) {
      await expect(searchDocuments({ generation, query, limit: 10, access: ALL })).resolves.toBeInstanceOf(Array);
    }
    expect(await ids(generation, `"back\\slash"`)).toEqual(["q"]);
    expect(await ids(generation, "it's quoted")).toEqual(["q"]);
  });
});

describe("filters", () => {
  it("filters on sources, pairs, tags (a value or a list holding it) and inclusive dates", async () => {
    const generation = await generationWith([
      chunkRow("web-1", "eta", { source: "web", ccPairIds: [1], docUpdatedAt: new Date("2024-01-01T00:00:00Z") }),
      chunkRow("file-2", "eta", {
        source: "file",
        ccPairIds: [2, 3],
        tags: [
          { key: "team", value: "search" },
          { key: "team", value: "infra" },
        ],
        docUpdatedAt: new Date("2024-06-01T00:00:00Z"),
      }),
      chunkRow("web-3", "eta", { source: "web", ccPairIds: [3], tags: [{ key: "owner", value: "infra" }], docUpdatedAt: new Date("2025-01-01T00:00:00Z") }),
    ]);
    const sorted = async (filter: Parameters<typeof searchDocuments>[0]["filter"]) => (await ids(generation, "eta", ALL, 10, filter)).sort();
    expect(await sorted({ sources: ["web"] })).toEqual(["web-1", "web-3"]);
    expect(await sorted({ ccPairIds: [3] })).toEqual(["file-2", "web-3"]);
    expect(await sorted({ tags: [{ key: "team", value: "infra" }] })).toEqual(["file-2"]);
    expect(await sorted({ tags: [{ key: "team", value: "search" }, { key: "owner", value: "infra" }] })).toEqual(["file-2", "web-3"]);
    expect(await sorted({ docUpdatedAfter: new Date("2024-06-01T00:00:00Z") })).toEqual(["file-2", "web-3"]);
    expect(await sorted({ docUpdatedBefore: new Date("2024-06-01T00:00:00Z") })).toEqual(["file-2", "web-1"]);
    expect(await sorted({ sources: ["web"], docUpdatedAfter: new Date("2024-06-01T00:00:00Z") })).toEqual(["web-3"]);
    expect(await sorted({ ccPairIds: [] })).toEqual([]);
    const hit = (await searchDocuments({ generation, query: "eta", limit: 1, access: ALL, filter: { ccPairIds: [1] } }))[0];
    expect(hit?.docUpdatedAt.toISOString()).toBe("2024-01-01T00:00:00.000Z");
  });
});

describe("writes", () => {
  it("replaces a document's rows, drops chunks it no longer has, and a repeated batch changes nothing", async () => {
    const generation = await generationWith([0, 1, 2].map((i) => chunkRow("doc", `theta old ${i}`, { chunkIndex: i })));
    const batch = { generation, documentIds: ["doc", "gone"], chunks: [chunkRow("doc", "theta new", { chunkIndex: 0 })] };
    await replaceDocuments(batch);
    await replaceDocuments(batch);
    expect(await generation.table.countRows()).toBe(1);
    expect(await ids(generation, "old")).toEqual([]);
    expect(await ids(generation, "theta new")).toEqual(["doc"]);
    await replaceDocuments({ generation, documentIds: ["doc"], chunks: [] });
    expect(await generation.table.countRows()).toBe(0);
  });

  it("appends new documents' rows in one commit, found at once beside the merged ones", async () => {
    const generation = await generationWith([chunkRow("seed", "kappa merged")]);
    const before = await generation.table.version();
    const chunks = Array.from({ length: 30 }, (_, i) => chunkRow(`new-${i % 10}`, `kappa fresh ${i}`, { chunkIndex: Math.floor(i / 10) }));
    await appendDocuments({ generation, chunks });
    expect(await generation.table.version()).toBe(before + 1);
    expect(await generation.table.countRows()).toBe(31);
    expect(await generation.table.countRows("document_id = 'new-3'")).toBe(3);
    expect(await ids(generation, "kappa", ALL, 20)).toHaveLength(11);
    // A later version of one of them is a replace: it keeps exactly its own rows.
    await replaceDocuments({ generation, documentIds: ["new-3"], chunks: [chunkRow("new-3", "kappa revised")] });
    expect(await generation.table.countRows("document_id = 'new-3'")).toBe(1);
  });

  it("group-commits appends that come while another is committing, and each call resolves once its rows are in", async () => {
    const generation = await generationWith([chunkRow("seed", "lambda")]);
    const before = await generation.table.version();
    // Five batches at once, as the worker's pollers send them: the first commits alone, the four that
    // came during its commit go together in the next.
    const batches = Array.from({ length: 5 }, (_, batch) =>
      Array.from({ length: 4 }, (_, i) => chunkRow(`group-${batch}-${i}`, `lambda batch${batch}`)),
    );
    const settled = await Promise.allSettled(batches.map((chunks) => appendDocuments({ generation, chunks })));
    expect(settled.map((result) => result.status)).toEqual(Array(5).fill("fulfilled"));
    expect(await generation.table.version()).toBe(before + 2);
    expect(await generation.table.countRows()).toBe(1 + 20);
    expect(await ids(generation, "batch4", ALL, 20)).toHaveLength(4);
    // Alone again: the next append is a commit of its own, at once.
    await appendDocuments({ generation, chunks: [chunkRow("after", "lambda later")] });
    expect(await generation.table.version()).toBe(before + 3);
  });

  it("commits one batch of many documents once", async () => {
    const generation = await generationWith([chunkRow("seed", "iota")]);
    const before = await generation.table.version();
    const chunks = Array.from({ length: 50 }, (_, i) => chunkRow(`batch-${i}`, "iota"));
    await replaceDocuments({ generation, documentIds: chunks.map((c) => c.documentId), chunks });
    expect(await generation.table.version()).toBe(before + 1);
  });

  it("writes a document larger than one write slice whole and once; shrinking and retrying it leave exactly its chunks", async () => {
    const generation = await generationWith([chunkRow("seed", "omicron")]);
    const big = (count: number, word: string) =>
      Array.from({ length: count }, (_, i) => chunkRow("big", `${word} piece${i}`, { chunkIndex: i }));
    const before = await generation.table.version();
    // 2,500 rows: more than one slice (1,000 rows), so several commits, each followed by afterSlice.
    let slicesDone = 0;
    const afterSlice = () => (slicesDone += 1);
    await replaceDocuments({ generation, documentIds: ["big"], chunks: big(2_500, "first"), afterSlice });
    expect(await generation.table.version()).toBeGreaterThan(before + 1);
    expect(slicesDone).toBe(3);
    expect(await generation.table.countRows("document_id = 'big'")).toBe(2_500);
    expect(await chunkIds(generation, "document_id = 'big'")).toEqual(Array.from({ length: 2_500 }, (_, i) => `${i}:big`).sort());
    expect(await ids(generation, "piece0")).toEqual(["big"]);
    expect(await ids(generation, "piece2499")).toEqual(["big"]);
    // The document shrinks to 1,200 chunks (two slices); the same batch again (a retried job) changes nothing.
    const shrunk = { generation, documentIds: ["big"], chunks: big(1_200, "second") };
    await replaceDocuments(shrunk);
    await replaceDocuments(shrunk);
    expect(await generation.table.countRows("document_id = 'big'")).toBe(1_200);
    expect(await ids(generation, "first")).toEqual([]);
    expect(await ids(generation, "piece1199")).toEqual(["big"]);
    expect(await ids(generation, "piece1200")).toEqual([]);
    expect(await generation.table.countRows()).toBe(1 + 1_200);
    // A batch of one slice (every batch of ordinary documents) is written without it.
    slicesDone = 0;
    await replaceDocuments({ generation, documentIds: ["big"], chunks: big(10, "third"), afterSlice });
    await appendDocuments({ generation, chunks: [chunkRow("small", "fourth")], afterSlice });
    expect(slicesDone).toBe(0);
  }, 60_000);

  it("drops a document's chunks that a batch numbered with gaps leaves out", async () => {
    const generation = await generationWith([0, 1, 2, 3].map((i) => chunkRow("gaps", `rho ${i}`, { chunkIndex: i })));
    await replaceDocuments({ generation, documentIds: ["gaps"], chunks: [0, 2].map((i) => chunkRow("gaps", `rho new ${i}`, { chunkIndex: i })) });
    expect(await chunkIds(generation)).toEqual(["0:gaps", "2:gaps"]);
  });

  it("deletes documents' rows and ignores absent ones", async () => {
    const generation = await generationWith([chunkRow("keep", "kappa"), chunkRow("drop", "kappa"), chunkRow("drop", "kappa", { chunkIndex: 1 })]);
    await deleteDocuments({ generation, documentIds: ["drop", "never-there"] });
    expect(await ids(generation, "kappa")).toEqual(["keep"]);
    expect(await generation.table.countRows()).toBe(1);
  });

  it("takes concurrent writers on one table, each through its own connection", async () => {
    const generation = await generationWith([chunkRow("seed", "lambda")]);
    const writers = await Promise.all(Array.from({ length: 4 }, () => openSearchIndex({ uri: temp.dir })));
    try {
      await Promise.all(
        writers.map(async (index, writer) => {
          const own = await openGenerationTable({ index, generationId: generation.generationId });
          if (own === null) throw new Error("table missing");
          for (let batch = 0; batch < 5; batch++) {
            const chunks = Array.from({ length: 10 }, (_, i) => chunkRow(`w${writer}-b${batch}-${i}`, "lambda"));
            // Every batch also replaces the writer's own long-lived document, shrinking it to one chunk
            // after the first batch. (One document is never replaced by two writers at once: svc holds
            // its row lock in PostgreSQL while it writes the document's rows.)
            const ownId = `shared-${writer}`;
            const ownChunks = batch === 0 ? [0, 1, 2].map((i) => chunkRow(ownId, `lambda ${i}`, { chunkIndex: i })) : [chunkRow(ownId, `lambda from batch ${batch}`)];
            chunks.push(...ownChunks);
            await replaceDocuments({ generation: own, documentIds: [...new Set(chunks.map((c) => c.documentId))], chunks });
          }
        }),
      );
    } finally {
      writers.forEach(closeSearchIndex);
    }
    await generation.table.checkoutLatest();
    expect(await generation.table.countRows()).toBe(1 + 4 * 5 * 10 + 4);
    for (let writer = 0; writer < 4; writer++) {
      expect(await generation.table.countRows(`document_id = 'shared-${writer}'`)).toBe(1);
      expect(await ids(generation, "batch")).toContain(`shared-${writer}`);
    }
  });
});

describe("generations, language and maintenance", () => {
  it("opens an object-store URI by the same call (LanceDB's in-memory store stands in for S3)", async () => {
    const index = await openSearchIndex({ uri: "memory://svc-search-index-test" });
    try {
      const generation = await createGenerationTable({ index, generationId: 1, textSearchConfig: "english" });
      await replaceDocuments({ generation, documentIds: ["m"], chunks: [chunkRow("m", "object store")] });
      expect(await ids(generation, "store")).toEqual(["m"]);
    } finally {
      closeSearchIndex(index);
    }
  });

  it("opens a generation by id with its language, says when it is missing, and drops it", async () => {
    const created = await createGenerationTable({ index: temp.index, generationId: 900, textSearchConfig: "simple" });
    const opened = await openGenerationTable({ index: temp.index, generationId: 900 });
    expect(opened?.language.textSearchConfig).toBe("simple");
    expect(await openGenerationTable({ index: temp.index, generationId: 901 })).toBeNull();
    // simple: no stemming.
    await replaceDocuments({ generation: created, documentIds: ["s"], chunks: [chunkRow("s", "searching")] });
    expect(await ids(created, "search")).toEqual([]);
    expect(await ids(created, "searching")).toEqual(["s"]);
    await dropGenerationTable({ index: temp.index, generationId: 900 });
    expect(await openGenerationTable({ index: temp.index, generationId: 900 })).toBeNull();
    await dropGenerationTable({ index: temp.index, generationId: 900 });
  });

  it("stems in the generation's language and refuses a configuration the index cannot honour", async () => {
    const german = await generationWith([chunkRow("de", "Die Häuser sind groß")], "german");
    expect(await ids(german, "haus")).toEqual(["de"]);
    const refused = createGenerationTable({ index: temp.index, generationId: 902, textSearchConfig: "klingon" });
    await expect(refused).rejects.toBeInstanceOf(SearchIndexError);
    await expect(refused).rejects.toMatchObject({ code: "UNSUPPORTED_TEXT_SEARCH_CONFIG" });
    expect(await openGenerationTable({ index: temp.index, generationId: 902 })).toBeNull();
  });

  it("optimize merges unindexed rows into the index and prunes old versions; search still finds everything", async () => {
    const generation = await generationWith([chunkRow("first", "mu")]);
    for (let i = 0; i < 5; i++) await replaceDocuments({ generation, documentIds: [`more-${i}`], chunks: [chunkRow(`more-${i}`, "mu nu")] });
    const unindexed = async () => (await generation.table.indexStats("text_idx"))?.numUnindexedRows;
    expect(await unindexed()).toBe(5);
    // Rows written before the index existed were merged when generationWith optimized.
    const versionsBefore = (await generation.table.listVersions()).length;
    const stats = await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    expect(await unindexed()).toBe(0);
    expect(stats.versionsRemoved).toBeGreaterThan(0);
    expect((await generation.table.listVersions()).length).toBeLessThan(versionsBefore);
    expect(await ids(generation, "mu")).toHaveLength(6);
  });
});

describe("maintenance beside a steady stream of updates", () => {
  const unmergedRows = async (generation: GenerationTable) => (await generation.table.indexStats("text_idx"))?.numUnindexedRows ?? 0;
  const CHUNKS = 8;
  const chunksOf = (documentId: string, words: string) =>
    Array.from({ length: CHUNKS }, (_, chunkIndex) => chunkRow(documentId, `${words} ${filler(30, "x")}`, { chunkIndex }));

  /** A generation of `documents` documents of CHUNKS chunks each, merged. */
  const corpus = (documents: number) => generationWith(Array.from({ length: documents }, (_, i) => chunksOf(`doc-${i}`, "omega")).flat());

  /**
   * Re-ingests documents of the generation one after another, across the whole table as re-ingests of
   * a corpus fall, until `until` settles; resolves with how many it wrote while `counting()` said so.
   */
  async function updateUntil(generation: GenerationTable, documents: number, until: Promise<unknown>, counting: () => boolean) {
    let done = false;
    void until.finally(() => (done = true)).catch(() => undefined);
    let counted = 0;
    for (let n = 0; !done; n++) {
      const documentId = `doc-${(n * 7_919) % documents}`;
      await replaceDocuments({ generation, documentIds: [documentId], chunks: chunksOf(documentId, `omega update${n}`) });
      if (counting()) counted += CHUNKS;
    }
    return counted;
  }

  it("merges new rows into the indexes while updates commit beside it", async () => {
    const generation = await corpus(100);
    for (let i = 0; i < 5; i++) await replaceDocuments({ generation, documentIds: [`doc-${i}`], chunks: chunksOf(`doc-${i}`, "omega psi") });
    expect(await unmergedRows(generation)).toBe(5 * CHUNKS);
    let merging = false;
    const merge = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      merging = true;
      await mergeGenerationTable({ generation });
    })();
    const writtenDuring = await updateUntil(generation, 100, merge, () => merging);
    await merge;
    // Every row committed before the merge began is in the indexes; at most those written since are not.
    expect(await unmergedRows(generation)).toBeLessThanOrEqual(writtenDuring);
    expect(await chunkIds(generation)).toHaveLength(100 * CHUNKS);
    await mergeGenerationTable({ generation });
    expect(await unmergedRows(generation)).toBe(0);
  });

  it("compacts under a steady stream of updates: this process's updates wait for the compaction to commit", async () => {
    // Without the table's WriteGate, a compaction's commit lost to any update that deleted rows in a
    // fragment it rewrote: at 100,000 rows every retry lost, and the table was never compacted nor
    // merged (bench/RESULTS.md, session 15). At this size the race is rarer; the test holds the outcome.
    const documents = 2_500;
    const generation = await corpus(documents);
    for (let n = 0; n < 20; n++) await replaceDocuments({ generation, documentIds: [`doc-${n}`], chunks: chunksOf(`doc-${n}`, "omega") });
    const compaction = optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    await Promise.all([0, 1].map(() => updateUntil(generation, documents, compaction, () => false)));
    const { fragmentsRemoved } = await compaction;
    expect(fragmentsRemoved).toBeGreaterThan(0);
    // Every document's chunks once, none lost or doubled; an updated one is found by its new words.
    expect(await chunkIds(generation)).toHaveLength(documents * CHUNKS);
    expect(new Set(await chunkIds(generation)).size).toBe(documents * CHUNKS);
    expect(await ids(generation, "update1")).toEqual([`doc-${7_919 % documents}`]);
  });

  it("brings the key B-trees up to date without preempting a compaction in progress, and leaves the FTS index as it was", async () => {
    const generation = await corpus(50);
    for (let n = 0; n < 5; n++) await replaceDocuments({ generation, documentIds: [`doc-${n}`], chunks: chunksOf(`doc-${n}`, "omega sigma") });
    const keyStats = () => generation.table.indexStats("chunk_id_idx");
    expect((await keyStats())?.numUnindexedRows).toBe(5 * CHUNKS);

    // A compaction holds the gate (as optimizeGenerationTable does): the refresh, whose commit would
    // make the compaction's fail, waits for it. It takes tens of milliseconds when it may run.
    let release!: () => void;
    const compaction = generation.gate.alone(() => new Promise<void>((resolve) => (release = resolve)));
    const refresh = refreshKeyIndexes({ generation }).then(() => "refreshed");
    const held = new Promise((resolve) => setTimeout(() => resolve("held"), 1_000));
    expect(await Promise.race([refresh, held])).toBe("held");
    release();
    await compaction;
    expect(await refresh).toBe("refreshed");

    expect(await keyStats()).toMatchObject({ numUnindexedRows: 0, numIndexedRows: 50 * CHUNKS });
    expect((await generation.table.indexStats("document_id_idx"))?.numUnindexedRows).toBe(0);
    expect(await unmergedRows(generation)).toBe(5 * CHUNKS);
    expect(await ids(generation, "sigma")).toHaveLength(5);
  });
});

describe("memory", () => {
  /** Commits like a worker's: batches of documents replaced, the table optimized after every few. */
  async function writeBatches(index: SearchIndex, generationId: number): Promise<void> {
    const generation = await createGenerationTable({ index, generationId, textSearchConfig: "english" });
    for (let batch = 0; batch < 24; batch += 1) {
      const documentIds = Array.from({ length: 10 }, (_, i) => `cache-${batch}-${i}`);
      await replaceDocuments({ generation, documentIds, chunks: documentIds.map((id) => chunkRow(id, `${filler(80, "w")} ${id}`)) });
      if (batch % 6 === 5) await optimizeGenerationTable({ generation, pruneOlderThan: new Date(0) });
    }
  }

  it("keeps a writer's caches within the bounds it was opened with, which LanceDB's own let grow", async () => {
    const bound = 64 * 1024;
    const bounded = await openSearchIndex({ uri: temp.dir, cacheBytes: { index: bound, metadata: bound } });
    const unbounded = await openSearchIndex({ uri: temp.dir });
    try {
      await writeBatches(bounded, 900);
      await writeBatches(unbounded, 901);
      // Two caches (index, metadata), each within its bound. Their cache (moka) evicts after an insert,
      // so at a given moment it may stand a little over (131,343 bytes against 131,072 seen here); a
      // cache left to LanceDB's bounds held ~2.4 MB after the same writes.
      expect(Number(bounded.session.sizeBytes())).toBeLessThanOrEqual(2 * bound * 1.1);
      expect(Number(unbounded.session.sizeBytes())).toBeGreaterThan(4 * 2 * bound);
    } finally {
      closeSearchIndex(bounded);
      closeSearchIndex(unbounded);
    }
  });
});
