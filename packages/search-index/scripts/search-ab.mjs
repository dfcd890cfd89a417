// A/B of searchDocuments and raw LanceDB query forms in one process, on an index kept by bench/search
// (`--keep`), with run.mjs's queries (same seed and draw order; phrases regenerated from the corpus).
// `base-*` variants run another version of search-documents.ts, copied beside the current one:
//   git show <commit>:packages/search-index/src/search-documents.ts > packages/search-index/src/search-documents-base.ts
//   cd packages/search-index && node --import ../../bench/node_modules/tsx/dist/loader.mjs scripts/search-ab.mjs \
//     --dir /tmp/bs-pkg/1m --runs 30 --rounds 3 --classes two,five,phrase,common --variants base-all,full-all,base-acc,full-acc
// --trace prints each search's LanceDB steps (when search-documents.ts records them); --explain runs analyzePlan.
import { parseArgs } from "node:util";
import { BooleanQuery, MatchQuery, Occur, Operator, PhraseQuery } from "@lancedb/lancedb";
import { buildSearchFilter, closeSearchIndex, openGenerationTable, openSearchIndex, searchDocuments } from "../src/index.ts";
import { percentile } from "../../../bench/lib/harness.mjs";
import { chunkText, createRandom, createVocabulary } from "../../../bench/search/corpus.mjs";

const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  options: {
    dir: { type: "string" },
    runs: { type: "string", default: "30" },
    variants: { type: "string", default: "" },
    classes: { type: "string", default: "two,five" },
    rounds: { type: "string", default: "1" },
    explain: { type: "boolean", default: false },
    chunks: { type: "string", default: "1000000" },
    trace: { type: "boolean", default: false },
  },
});
const RUNS = Number(options.runs);
const CHUNKS = Number(options.chunks);
const vocabulary = createVocabulary(19);
const queryRandom = createRandom(21);
const between = (low, high) => low + Math.floor(queryRandom() * (high - low + 1));
const rankWord = (low, high) => vocabulary.words[between(low, high)];
function distinctWords(count, low, high) {
  const words = new Set();
  while (words.size < count) words.add(rankWord(low, high));
  return [...words].join(" ");
}
// Same draw order as run.mjs (phrases excluded: they need the corpus).
const CLASSES = {
  common: () => rankWord(0, 9),
  mid: () => rankWord(900, 1100),
  rare: () => rankWord(19_000, 21_000),
  two: () => distinctWords(2, 0, 19),
  five: () => distinctWords(5, 0, 19),
  twenty: () => distinctWords(20, 0, 49),
};
const queries = Object.fromEntries(Object.entries(CLASSES).map(([name, make]) => [name, Array.from({ length: 5 + RUNS }, make)]));

const RESTRICTED = { publicPairIds: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], visiblePairIds: [15], email: "user3@example.com", groups: ["group7"] };
const ACCESS = buildSearchFilter(RESTRICTED, null);
const RANK = ["chunk_id", "document_id", "chunk_index", "_score"];
const phraseOf = (q) => q.replaceAll('"', "");

const and = (q) => new MatchQuery(q, "text", { operator: Operator.And });
const must = (q) => new BooleanQuery(q.split(" ").map((w) => [Occur.Must, new MatchQuery(w, "text")]));
const mustAnd = (q) => new BooleanQuery(q.split(" ").map((w) => [Occur.Must, new MatchQuery(w, "text", { operator: Operator.And })]));

const index = await openSearchIndex({ uri: options.dir });
const generation = await openGenerationTable({ index, generationId: 1 });
const table = generation.table;
// Phrases exactly as run.mjs makes them: words 10 and 11 of every 500th chunk of the seeded corpus.
{
  let random = createRandom(20);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const btw = (low, high) => low + Math.floor(random() * (high - low + 1));
  const phrases = [];
  let chunks = 0;
  for (let number = 0; chunks < CHUNKS; number += 1) {
    const chunkCount = btw(1, 4);
    pick(["web", "file", "confluence", "slack"]);
    btw(0, 700); btw(0, 19); btw(0, 9);
    if (!(random() < 0.8)) random();
    if (random() < 0.1) btw(0, 49);
    if (random() < 0.1) btw(0, 19);
    for (let c = 0; c < chunkCount; c++) {
      const text = chunkText(random, vocabulary);
      if (chunks % 500 === 0) { const w = text.split(" "); phrases.push(`"${w[10]} ${w[11]}"`); }
      chunks += 1;
    }
  }
  queries.phrase = Array.from({ length: 5 + RUNS }, () => phrases[Math.floor(queryRandom() * phrases.length)]);
}

const raw = (make, { limit = 30, where = null, columns = RANK, fast = false } = {}) => async (q) => {
  let b = table.query().fullTextSearch(make(q)).select(columns).limit(limit);
  if (where) b = b.where(where);
  if (fast) b = b.fastSearch();
  return (await b.toArray()).length;
};
const full = (access) => async (q) => (await searchDocuments({ generation, query: q, limit: 10, access })).length;
const fullBase = (access) => async (q) => {
  const { searchDocuments: searchDocumentsBase } = await import("../src/search-documents-base.ts");
  return (await searchDocumentsBase({ generation, query: q, limit: 10, access })).length;
};

const phrase = (q) => new PhraseQuery(phraseOf(q), "text");
const phraseBool = (q) => new BooleanQuery([[Occur.Must, and(phraseOf(q))], [Occur.Must, phrase(q)]]);
const VARIANTS = {
  "phrase30": raw(phrase),
  "phrase30-acc": raw(phrase, { where: ACCESS }),
  "phrase120": raw(phrase, { limit: 120 }),
  "phrasebool30": raw(phraseBool),
  "phrasebool30-acc": raw(phraseBool, { where: ACCESS }),
  "and30": raw(and),
  "and30-acc": raw(and, { where: ACCESS }),
  "and120": raw(and, { limit: 120 }),
  "and120-acc": raw(and, { limit: 120, where: ACCESS }),
  "and10": raw(and, { limit: 10 }),
  "and120-id-acc": raw(and, { limit: 120, where: ACCESS, columns: ["chunk_id", "_score"] }),
  "and120-id": raw(and, { limit: 120, columns: ["chunk_id", "_score"] }),
  "and120-shown-acc": raw(and, { limit: 120, where: ACCESS, columns: [...RANK, "text", "semantic_identifier", "title", "source", "document_link", "link", "image_file_id", "doc_updated_at"] }),
  "and120-rowid-take-acc": async (q) => {
    const rows = await table.query().fullTextSearch(and(q)).select(RANK).withRowId().where(ACCESS).limit(120).toArray();
    const ids = rows.slice(0, 30).map((r) => r._rowid);
    if (ids.length === 0) return 0;
    const shown = await table.takeRowIds(ids).select(["chunk_id", "text", "semantic_identifier", "title", "source", "document_link", "link", "image_file_id", "doc_updated_at"]).toArray();
    return shown.length;
  },
  "and120-lookup-acc": async (q) => {
    const rows = await table.query().fullTextSearch(and(q)).select(RANK).where(ACCESS).limit(120).toArray();
    const ids = rows.slice(0, 30).map((r) => `'${r.chunk_id}'`);
    if (ids.length === 0) return 0;
    const shown = await table.query().where(`chunk_id IN (${ids.join(",")})`).select(["chunk_id", "text", "semantic_identifier", "title", "source", "document_link", "link", "image_file_id", "doc_updated_at"]).limit(30).toArray();
    return shown.length;
  },
  "phrase120-acc": raw(phrase, { limit: 120, where: ACCESS }),
  "must30": raw(must),
  "must30-acc": raw(must, { where: ACCESS }),
  "mustand30": raw(mustAnd),
  "and30-fast": raw(and, { fast: true }),
  "and30-score": raw(and, { columns: ["_score"] }),
  "full-all": full({ all: true }),
  "full-acc": full(RESTRICTED),
  "base-all": fullBase({ all: true }),
  "base-acc": fullBase(RESTRICTED),
};
const chosen = options.variants === "" ? Object.keys(VARIANTS) : options.variants.split(",");

async function time(fn, list) {
  for (const q of list.slice(0, 5)) await fn(q);
  const times = [];
  let n = 0;
  for (const q of list.slice(5)) {
    const s = performance.now();
    n += await fn(q);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: n / times.length };
}

if (options.explain) {
  for (const cls of options.classes.split(",")) {
    const q = queries[cls][5];
    for (const v of chosen) {
      const make = v.startsWith("must") ? must : and;
      let b = table.query().fullTextSearch(make(q)).select(RANK).limit(v.includes("120") ? 120 : 30);
      if (v.includes("acc")) b = b.where(ACCESS);
      console.log(`--- ${cls} ${v} ${q}\n${await b.analyzePlan()}`);
    }
  }
} else if (!options.trace) {
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const cls of options.classes.split(",")) {
      for (const v of chosen) {
        const r = await time(VARIANTS[v], queries[cls]);
        console.log(`${cls}\t${v}\tp50 ${r.p50.toFixed(1)}\tp95 ${r.p95.toFixed(1)}\trows ${r.n.toFixed(1)}`);
      }
    }
  }
}
closeSearchIndex(index);
if (options.trace) {
  for (const cls of options.classes.split(",")) {
    for (const access of [{ all: true }, RESTRICTED]) {
      const steps = [];
      let total = [];
      for (const q of queries[cls].slice(5)) {
        globalThis.__svcTrace = [];
        const s = performance.now();
        await searchDocuments({ generation, query: q, limit: 10, access });
        total.push(performance.now() - s);
        steps.push(globalThis.__svcTrace.map((t) => t.toFixed(0)).join("+"));
      }
      console.log(cls, access.all ? "all" : "acc");
      for (let i = 0; i < steps.length; i++) console.log(`  ${total[i].toFixed(0)} = ${steps[i]}`);
    }
  }
  globalThis.__svcTrace = undefined;
}
