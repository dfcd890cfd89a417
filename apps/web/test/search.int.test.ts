import { createTestPair, testSearchIndex } from "@svc/core/testing";
import { SearchResponseSchema, type SearchResponse } from "@svc/schema";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_DETAIL, useTestApp } from "./app";
import { indexNow, ingestAndIndexOverApi, ingestOverApi } from "./factories";

const app = useTestApp();
const SEARCH = "/api/svc-api/search";

/** Runs the indexing job of the document's current version, as the worker would. */

async function search(body: Record<string, unknown>, key?: string): Promise<SearchResponse> {
  const response = await app.request("POST", SEARCH, { body, key });
  expect(response.status).toBe(200);
  return SearchResponseSchema.strict().parse(await response.json());
}

async function searchIds(body: Record<string, unknown>, key?: string): Promise<string[]> {
  return (await search(body, key)).results.map((result) => result.document_id);
}

describe("POST /api/svc-api/search: matching and ranking", () => {
  beforeAll(async () => {
    await ingestAndIndexOverApi(app, { id: "rank-body", title: "Travel policy", text: "The quillfeather form is filed yearly." });
    await ingestAndIndexOverApi(app, { id: "rank-title", title: "Quillfeather handbook", text: "How expenses are approved." });
    await ingestAndIndexOverApi(app, { id: "tagged", text: "Rota for the week.", fields: { metadata: { team: "glimmerwing", owners: ["ann", "bob"] } } });
    await ingestAndIndexOverApi(app, { id: "escaped", text: "The zanthor protocol treats <script>alert(1)</script> & friends as text." });
  });

  it("finds a document by its body text and by its title, the title match ranked first", async () => {
    const { results } = await search({ query: "quillfeather" });
    expect(results.map((result) => result.document_id)).toEqual(["rank-title", "rank-body"]);
    expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Infinity);
    expect(results[1]).toMatchObject({
      semantic_identifier: "Travel policy",
      title: null,
      source: "ingestion_api",
      link: "https://example.com/rank-body",
      chunks: [expect.objectContaining({ chunk_index: 0, link: "https://example.com/rank-body", image_file_id: null })],
    });
    expect(await searchIds({ query: "expenses approved" })).toEqual(["rank-title"]);
  });

  it("finds a document by a metadata value", async () => {
    expect(await searchIds({ query: "glimmerwing" })).toEqual(["tagged"]);
  });

  it("highlights the matches in the snippet, the chunk text HTML-escaped", async () => {
    const [result] = (await search({ query: "quillfeather forms" })).results.filter((r) => r.document_id === "rank-body");
    expect(result?.chunks[0]?.snippet).toContain("<mark>quillfeather</mark> <mark>form</mark>");
    const snippet = (await search({ query: "zanthor" })).results[0]?.chunks[0]?.snippet ?? "";
    expect(snippet).toContain("<mark>zanthor</mark>");
    expect(snippet).toContain("&lt;script&gt;");
    expect(snippet).not.toContain("<script>");
  });

  it("shows the same page whether PostgreSQL or the index supplies the shown chunks' text", async () => {
    await ingestAndIndexOverApi(app, {
      id: "shown-copy",
      title: "Marrowfen guide",
      text: "Marrowfen tides turn twice a day; <b>bold</b> claims aside.",
      fields: { metadata: { region: "marrowfen coast" } },
    });
    const fromPostgres = await search({ query: "marrowfen" });
    // The body holds the word: the snippet is the body's, without the title before it or the metadata after it.
    expect(fromPostgres.results[0]?.chunks[0]?.snippet).toBe("<mark>Marrowfen</mark> tides turn twice a day; &lt;b&gt;bold&lt;/b&gt; claims aside.");
    // The moment between the index's commit and PostgreSQL's: the chunks are not in PostgreSQL yet.
    await app.db.$executeRaw`DELETE FROM document_chunk WHERE document_id = 'shown-copy'`;
    expect(await search({ query: "marrowfen" })).toEqual(fromPostgres);
  });

  it("answers a question with the documents holding its words, most and rarest first; `match: all` requires every word", async () => {
    await ingestAndIndexOverApi(
      app,
      { id: "q-answer", title: "Expense claims", text: "Submit the quillfeather form within thirty days of travel, with receipts." },
      { id: "q-partial", title: "Receipts", text: "Keep receipts for five years." },
    );
    const question = "how many days do I have to submit my quillfeather receipts?";
    const page = await searchIds({ query: question });
    expect(page[0]).toBe("q-answer");
    expect(page).toEqual(expect.arrayContaining(["q-partial", "rank-body", "rank-title"]));
    expect(await searchIds({ query: question, match: "all" })).toEqual([]);
    expect(await searchIds({ query: "submit quillfeather receipts", match: "all" })).toEqual(["q-answer"]);
    expect(await searchIds({ query: "quillfeather -receipts" })).toEqual(["rank-title", "rank-body"]);
    expect(await searchIds({ query: 'receipts "five years"' })).toEqual(["q-partial"]);
    // A misspelled word finds the document holding the word meant.
    expect(await searchIds({ query: "quilfeather handbok" })).toEqual(expect.arrayContaining(["rank-title"]));
    expect((await searchIds({ query: "quilfeather handbok" }))[0]).toBe("rank-title");
  });

  it("shows a snippet of the body when the match is there, and the title or metadata only when the match is in them alone", async () => {
    await ingestAndIndexOverApi(app, {
      id: "snippet-parts",
      title: "Ferrule glossary",
      text: "A ferrule clamps the hose. Tighten it by hand.",
      fields: { metadata: { file_type: "md", shelf: "bronzewick" } },
    });
    const body = (await search({ query: "what does a ferrule clamp" })).results.find((r) => r.document_id === "snippet-parts");
    expect(body?.chunks[0]?.snippet).toBe("A <mark>ferrule</mark> <mark>clamps</mark> the hose. Tighten it by hand.");
    const title = (await search({ query: "glossary" })).results.find((r) => r.document_id === "snippet-parts");
    expect(title?.chunks[0]?.snippet).toMatch(/^Ferrule <mark>glossary<\/mark>\n/);
    const metadata = (await search({ query: "bronzewick" })).results.find((r) => r.document_id === "snippet-parts");
    expect(metadata?.chunks[0]?.snippet).toContain("shelf: <mark>bronzewick</mark>");
  });

  it("finds nothing for a query without a match or made only of stop words", async () => {
    expect(await searchIds({ query: "nonexistentwordxyz" })).toEqual([]);
    expect(await searchIds({ query: "the and of" })).toEqual([]);
  });
});

describe("POST /api/svc-api/search: filters", () => {
  let pairA = 0;
  let pairB = 0;
  beforeAll(async () => {
    pairA = await createTestPair(app.db, { name: "filters A" });
    pairB = await createTestPair(app.db, { name: "filters B" });
    await ingestAndIndexOverApi(app, { id: "f-web", ccPairId: pairA, text: "filtrum", fields: { source: "web", metadata: { color: "red" }, doc_updated_at: "2024-01-01T00:00:00Z" } });
    await ingestAndIndexOverApi(app, { id: "f-slack", ccPairId: pairB, text: "filtrum", fields: { source: "slack", metadata: { color: ["blue", "green"] }, doc_updated_at: "2024-06-01T00:00:00Z" } });
    await ingestAndIndexOverApi(app, { id: "f-api", ccPairId: pairA, text: "filtrum", fields: { doc_updated_at: "2025-01-01T00:00:00Z" } });
  });

  const filtered = async (filters: Record<string, unknown>) => (await searchIds({ query: "filtrum", filters })).sort();

  it("filters by source", async () => {
    expect(await filtered({})).toEqual(["f-api", "f-slack", "f-web"]);
    expect(await filtered({ sources: ["web"] })).toEqual(["f-web"]);
    expect(await filtered({ sources: ["web", "slack"] })).toEqual(["f-slack", "f-web"]);
    expect(await filtered({ sources: [] })).toEqual([]);
  });

  it("filters by pair", async () => {
    expect(await filtered({ cc_pair_ids: [pairB] })).toEqual(["f-slack"]);
    expect(await filtered({ cc_pair_ids: [pairA, pairB] })).toEqual(["f-api", "f-slack", "f-web"]);
  });

  it("filters by tag: a string value equal to it, or a list holding it; any one tag matching", async () => {
    expect(await filtered({ tags: [{ key: "color", value: "red" }] })).toEqual(["f-web"]);
    expect(await filtered({ tags: [{ key: "color", value: "green" }] })).toEqual(["f-slack"]);
    expect(await filtered({ tags: [{ key: "color", value: "gre" }] })).toEqual([]);
    expect(await filtered({ tags: [{ key: "colour", value: "red" }] })).toEqual([]);
    expect(await filtered({ tags: [{ key: "color", value: "red" }, { key: "color", value: "blue" }] })).toEqual(["f-slack", "f-web"]);
  });

  it("filters by update date, both bounds inclusive", async () => {
    expect(await filtered({ doc_updated_after: "2024-03-01T00:00:00Z" })).toEqual(["f-api", "f-slack"]);
    expect(await filtered({ doc_updated_before: "2024-12-31T00:00:00Z" })).toEqual(["f-slack", "f-web"]);
    expect(await filtered({ doc_updated_after: "2024-06-01T00:00:00Z", doc_updated_before: "2024-06-01T00:00:00Z" })).toEqual(["f-slack"]);
  });

  it("combines filters", async () => {
    expect(await filtered({ cc_pair_ids: [pairA], doc_updated_after: "2024-03-01T00:00:00Z" })).toEqual(["f-api"]);
    expect(await filtered({ sources: ["web"], tags: [{ key: "color", value: "green" }] })).toEqual([]);
  });
});

describe("POST /api/svc-api/search: limit and chunks", () => {
  beforeAll(async () => {
    for (let index = 0; index < 5; index += 1) await ingestAndIndexOverApi(app, { id: `limit-${index}`, text: `limitword ${"limitword ".repeat(index)}` });
    const section = (n: number) => ({ text: `manychunks section ${n} ${"filler words here ".repeat(110)}`, link: `https://example.com/s${n}` });
    await ingestAndIndexOverApi(app, { id: "many-chunks", fields: { sections: [0, 1, 2, 3, 4, 5].map(section) } });
  });

  it("returns at most `limit` documents, 10 by default, best first", async () => {
    expect(await searchIds({ query: "limitword" })).toHaveLength(5);
    const { results } = await search({ query: "limitword", limit: 2 });
    expect(results).toHaveLength(2);
    expect(results.map((result) => result.document_id)).toEqual(["limit-4", "limit-3"]);
  });

  it("gives each document its best three chunks, best first", async () => {
    const { chunkCount } = await app.db.document.findUniqueOrThrow({ where: { id: "many-chunks" }, select: { chunkCount: true } });
    expect(chunkCount).toBeGreaterThan(3);
    const [result] = (await search({ query: "manychunks" })).results;
    expect(result?.chunks).toHaveLength(3);
    const scores = result?.chunks.map((chunk) => chunk.score) ?? [];
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(result?.score).toBe(scores[0]);
  });
});

describe("POST /api/svc-api/search: index freshness", () => {
  it("finds only indexed text: a new version replaces the old one once indexed", async () => {
    await ingestOverApi(app, { id: "fresh", text: "oldphrasing of the rule" });
    expect(await searchIds({ query: "oldphrasing" })).toEqual([]);
    await indexNow(app, "fresh");
    expect(await searchIds({ query: "oldphrasing" })).toEqual(["fresh"]);

    await ingestOverApi(app, { id: "fresh", text: "newphrasing of the rule" });
    await indexNow(app, "fresh");
    expect(await searchIds({ query: "oldphrasing" })).toEqual([]);
    expect(await searchIds({ query: "newphrasing" })).toEqual(["fresh"]);
  });
});

describe("POST /api/svc-api/search: who sees what", () => {
  const ALL = ["public-pair", "private-pair", "is-public", "not-public", "email", "group"];
  let publicPair = 0;
  let privatePair = 0;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    publicPair = await createTestPair(app.db, { name: "access public", access: "public" });
    privatePair = await createTestPair(app.db, { name: "access private", access: "private" });
    const access = (isPublic: boolean, emails: string[] = [], groups: string[] = []) => ({
      external_access: { is_public: isPublic, external_user_emails: emails, external_user_group_ids: groups },
    });
    await ingestAndIndexOverApi(app, { id: "public-pair", ccPairId: publicPair, text: "vizier" });
    await ingestAndIndexOverApi(app, { id: "private-pair", ccPairId: privatePair, text: "vizier" });
    await ingestAndIndexOverApi(app, { id: "is-public", ccPairId: privatePair, text: "vizier", fields: access(true) });
    await ingestAndIndexOverApi(app, { id: "not-public", ccPairId: publicPair, text: "vizier", fields: access(false) });
    await ingestAndIndexOverApi(app, { id: "email", ccPairId: privatePair, text: "vizier", fields: access(false, ["ann@example.com"]) });
    await ingestAndIndexOverApi(app, { id: "group", ccPairId: privatePair, text: "vizier", fields: access(false, [], ["eng"]) });
    keys.curator = await app.createKey("curator");
    keys.curatorOfPrivate = await app.createKey("curator", [privatePair]);
    keys.curatorOfPublic = await app.createKey("curator", [publicPair]);
  });

  it.each<[string, string, Record<string, unknown> | null | undefined, string[]]>([
    ["admin", "admin", undefined, ALL],
    ["admin on behalf of nobody in particular", "admin", {}, ["public-pair", "is-public"]],
    ["admin on behalf of ann", "admin", { email: "ann@example.com" }, ["public-pair", "is-public", "email"]],
    ["admin on behalf of group eng", "admin", { group_ids: ["sales", "eng"] }, ["public-pair", "is-public", "group"]],
    ["admin on behalf of ann in eng", "admin", { email: "ann@example.com", group_ids: ["eng"] }, ["public-pair", "is-public", "email", "group"]],
    ["admin on behalf of bob in sales", "admin", { email: "bob@example.com", group_ids: ["sales"] }, ["public-pair", "is-public"]],
    ["admin, principal null", "admin", null, ALL],
    ["unscoped curator", "curator", undefined, ALL],
    ["curator of the private pair", "curatorOfPrivate", undefined, ["public-pair", "private-pair", "is-public", "email", "group"]],
    ["curator of the public pair", "curatorOfPublic", undefined, ["public-pair", "is-public", "not-public"]],
  ])("%s", async (_name, keyName, principal, expected) => {
    const key = keyName === "admin" ? app.adminKey : keys[keyName];
    const ids = await searchIds({ query: "vizier", ...(principal === undefined ? {} : { principal }) }, key);
    expect(ids.sort()).toEqual([...expected].sort());
  });

  it("refuses a curator searching on behalf of someone", async () => {
    const response = await app.request("POST", SEARCH, { body: { query: "vizier", principal: {} }, key: keys.curator });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(ERROR_DETAIL);
  });
});

describe("POST /api/svc-api/search: the search index (BM25, access inside the query)", () => {
  it("ranks first the document most dominated by the query words, though ingested last", async () => {
    const filler = (seed: string) => Array.from({ length: 60 }, (_, index) => `${seed}${index}`).join(" ");
    for (let index = 0; index < 30; index += 1) {
      await ingestAndIndexOverApi(app, { id: `bm25-${index}`, text: `${filler("f")} plinthos ${filler("g")} corvane` });
    }
    await ingestAndIndexOverApi(app, { id: "bm25-dominated", text: "plinthos corvane plinthos corvane plinthos" });
    const { results } = await search({ query: "plinthos corvane", limit: 10 });
    expect(results).toHaveLength(10);
    expect(results[0]?.document_id).toBe("bm25-dominated");
    expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Infinity);
  });

  it("fills a scoped key's page with its own pair's documents, never another pair's, however many of those rank higher", async () => {
    const crowded = await createTestPair(app.db, { name: "crowded private", access: "private" });
    const mine = await createTestPair(app.db, { name: "mine private", access: "private" });
    // Forty strong matches in the other pair, three weak ones in the key's pair.
    for (let index = 0; index < 40; index += 1) {
      await ingestAndIndexOverApi(app, { id: `crowd-${index}`, ccPairId: crowded, text: "quennel quennel quennel" });
    }
    for (let index = 0; index < 3; index += 1) {
      await ingestAndIndexOverApi(app, { id: `mine-${index}`, ccPairId: mine, text: `quennel ${"padding words here ".repeat(20)}` });
    }
    const key = await app.createKey("curator", [mine]);
    expect(await searchIds({ query: "quennel", limit: 3 }, key)).toEqual(["mine-0", "mine-1", "mine-2"]);
    const everyone = await searchIds({ query: "quennel", limit: 3 });
    expect(everyone.every((id) => id.startsWith("crowd-"))).toBe(true);
  });

  it("fills a scoped key's page of `any` matches with its own documents when another pair's hold more of the words", async () => {
    const crowded = await createTestPair(app.db, { name: "crowded any", access: "private" });
    const mine = await createTestPair(app.db, { name: "mine any", access: "private" });
    await ingestAndIndexOverApi(
      app,
      ...Array.from({ length: 40 }, (_, index) => ({ id: `any-crowd-${index}`, ccPairId: crowded, text: "velkrin oscamble trudeline" })),
      ...Array.from({ length: 3 }, (_, index) => ({ id: `any-mine-${index}`, ccPairId: mine, text: `trudeline ${"padding words here ".repeat(10 + index)}` })),
    );
    const key = await app.createKey("curator", [mine]);
    expect(await searchIds({ query: "velkrin oscamble trudeline", limit: 3 }, key)).toEqual(["any-mine-0", "any-mine-1", "any-mine-2"]);
    expect((await searchIds({ query: "velkrin oscamble trudeline", limit: 3 })).every((id) => id.startsWith("any-crowd-"))).toBe(true);
  });

  it("ranks exactly for a scoped key that sees most of the index: the best matches it may not see are skipped, never shown", async () => {
    const hidden = await createTestPair(app.db, { name: "hidden private", access: "private" });
    const seen = await createTestPair(app.db, { name: "seen private", access: "private" });
    // Five strong matches the key may not see; thirty it may, their scores spread by their lengths.
    await ingestAndIndexOverApi(
      app,
      ...Array.from({ length: 5 }, (_, index) => ({ id: `hidden-${index}`, ccPairId: hidden, text: "tamberlon tamberlon tamberlon" })),
      ...Array.from({ length: 30 }, (_, index) => ({ id: `seen-${index}`, ccPairId: seen, text: `tamberlon ${"more words ".repeat(index + 1)}` })),
    );
    const key = await app.createKey("curator", [seen]);
    const page = await searchIds({ query: "tamberlon", limit: 10 }, key);
    // The key's page is the admin's ranking with the hidden documents taken out, in the same order.
    const everything = await searchIds({ query: "tamberlon", limit: 35 });
    expect(everything.slice(0, 5).every((id) => id.startsWith("hidden-"))).toBe(true);
    expect(page).toEqual(everything.filter((id) => id.startsWith("seen-")).slice(0, 10));
  });

  it("applies a change of a pair's access type at the next search, without reindexing", async () => {
    const pair = await createTestPair(app.db, { name: "flipping", access: "private" });
    await ingestAndIndexOverApi(app, { id: "flip-1", ccPairId: pair, text: "ortolanic" });
    const outsider = await app.createKey("curator", [await createTestPair(app.db, { name: "outsider" })]);
    expect(await searchIds({ query: "ortolanic" }, outsider)).toEqual([]);
    // No endpoint changes a pair's access type yet: the row is changed as a future one would.
    await app.db.connectorCredentialPair.update({ where: { id: pair }, data: { accessType: "public" } });
    expect(await searchIds({ query: "ortolanic" }, outsider)).toEqual(["flip-1"]);
  });

  it("removes a deleted document's rows from the index", async () => {
    await ingestAndIndexOverApi(app, { id: "doomed", text: "sarcenet ribbons" });
    expect(await searchIds({ query: "sarcenet" })).toEqual(["doomed"]);
    expect((await app.request("DELETE", "/api/svc-api/ingestion/doomed")).status).toBe(200);
    expect(await searchIds({ query: "sarcenet" })).toEqual([]);
    const [generation] = await app.db.$queryRaw<{ id: number }[]>`SELECT id FROM index_generation WHERE status = 'current'`;
    const table = await testSearchIndex().readable(generation?.id ?? -1);
    expect(await table?.table.countRows("document_id = 'doomed'")).toBe(0);
  });
});

describe("POST /api/svc-api/search: errors", () => {
  it("401 without a valid key, 403 for a role other than admin or curator", async () => {
    const missing = await app.request("POST", SEARCH, { body: { query: "x" }, key: null });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual(ERROR_DETAIL);
    expect((await app.request("POST", SEARCH, { body: { query: "x" }, key: "not-a-key" })).status).toBe(401);
    for (const role of ["basic", "limited"] as const) {
      const response = await app.request("POST", SEARCH, { body: { query: "x" }, key: await app.createKey(role) });
      expect(response.status).toBe(403);
    }
  });

  it("takes a query of 1,000 characters and one of 64 terms (the limits themselves)", async () => {
    expect(await searchIds({ query: "x".repeat(1000) })).toEqual([]);
    expect(await searchIds({ query: Array.from({ length: 64 }, (_, i) => `w${i}`).join(" ") })).toEqual([]);
  });

  it.each<[string, unknown, (string | number)[], string]>([
    ["an empty query", { query: "" }, ["body", "query"], "string_too_short"],
    ["no query", {}, ["body", "query"], "missing"],
    ["a query that is not a string", { query: 5 }, ["body", "query"], "string_type"],
    ["limit 0", { query: "x", limit: 0 }, ["body", "limit"], "greater_than_equal"],
    ["limit 101", { query: "x", limit: 101 }, ["body", "limit"], "less_than_equal"],
    ["an unknown match", { query: "x", match: "some" }, ["body", "match"], "enum"],
    ["an unknown source", { query: "x", filters: { sources: ["nope"] } }, ["body", "filters", "sources", 0], "enum"],
    ["a tag without value", { query: "x", filters: { tags: [{ key: "k" }] } }, ["body", "filters", "tags", 0, "value"], "missing"],
    ["a bad date", { query: "x", filters: { doc_updated_after: "soon" } }, ["body", "filters", "doc_updated_after"], "datetime_from_date_parsing"],
    ["group ids that are not a list", { query: "x", principal: { group_ids: "eng" } }, ["body", "principal", "group_ids"], "list_type"],
    ["a query of 1,001 characters", { query: "x".repeat(1001) }, ["body", "query"], "string_too_long"],
    ["a query of 65 terms", { query: Array.from({ length: 65 }, (_, i) => `w${i}`).join(" ") }, ["body", "query"], "value_error"],
  ])("422 for %s", async (_name, body, loc, type) => {
    const response = await app.request("POST", SEARCH, { body });
    expect(response.status).toBe(422);
    const { detail } = (await response.json()) as { detail: { loc: unknown[]; type: string }[] };
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });
});
