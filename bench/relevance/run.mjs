// bench/relevance: how well svc ranks, on public retrieval test collections with judgments (issue 37).
//
// For each collection (data/, see its README): a fresh database (svc_bench_relevance_<name>) and
// search index, the production web server and worker; every document ingested through the bulk call
// `POST /api/svc-api/ingestion/batch` (title → `title`, text → one section) and indexed by the real
// worker, every row merged into the search index. Then every judged query is searched through
// `POST /api/svc-api/search` with `limit` 10 and an admin key, its text passed as typed (whitespace
// collapsed; punctuation and quotes left to svc's parser). A query svc refuses with 422 (over 1,000
// characters or 64 terms) is counted and sent again cut to its first words within both limits; the
// reference engine gets the same text as svc (and, in a note, the whole text). The same run searches
// the reference: BM25 in SQLite FTS5 over the same titles and texts, the query's words OR-ed
// (reference-bm25.mjs). Then the variants, on both engines: each query with one typo (the same for
// both engines) in a word drawn at random, and in its rarest word; and as keywords (its 3 rarest
// words), clean and with one typo: a typo costs a short query more (evaluate.mjs). Reported per
// collection, engine and variant: nDCG@10 (linear gains, graded where the judgments are), P@10, MRR@10
// (means over the judged queries) and queries with no result.
//
//   pnpm build && pnpm --filter @svc/bench relevance
//
// Options: --collections list (cranfield,cisi), --seed of the typos (37: the random word's draws; the
// rarest word's edit draws from seed + 1, the keywords' typo from seed + 2), --keep (keep the
// databases and index directories), --json FILE (every query of every variant: the text searched,
// both engines' ranking and nDCG@10).
// Env: DATABASE_URL (the server to create databases on), BENCH_NODE_ARGS.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { resolveTextSearchLanguage } from "@svc/search-index";
import { createRandom } from "../index/corpus.mjs";
import {
  createAdminKey,
  databaseUrl,
  describeMachine,
  dropDatabase,
  findFreePort,
  percentile,
  postJson,
  ProcessGroup,
  recreateDatabase,
  root,
  waitForHttp,
} from "../lib/harness.mjs";
import { waitForIndexed, waitForMerged } from "../lib/index-state.mjs";
import { loadCollection } from "./collections.mjs";
import { injectTypo, keywordQuery, ndcgAt10, score } from "./evaluate.mjs";
import { createReferenceEngine } from "./reference-bm25.mjs";

const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  options: {
    collections: { type: "string", default: "cranfield,cisi" },
    seed: { type: "string", default: "37" },
    keep: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const SEED = Number(options.seed);
const BATCH = 250;
const INDEX_DEADLINE_MS = 30 * 60_000;
// svc's limits on a query (packages/schema MAX_SEARCH_QUERY_LENGTH and MAX_SEARCH_QUERY_TERMS).
const MAX_QUERY_LENGTH = 1000;
const MAX_QUERY_TERMS = 64;
const log = (message) => process.stderr.write(`${message}\n`);
const stopWords = resolveTextSearchLanguage("english").stopWords;

/** Terms as svc counts them for its limit (packages/schema countSearchQueryTerms): words, quotes not. */
const countTerms = (query) => query.split(/[\s"]+/).filter((token) => token !== "" && token !== "-").length;

/** The query's first words, as many as fit svc's limits on characters and terms. */
function truncateQuery(query) {
  const words = query.split(" ");
  while (words.length > 1 && (words.join(" ").length > MAX_QUERY_LENGTH || countTerms(words.join(" ")) > MAX_QUERY_TERMS)) words.pop();
  return words.join(" ");
}

/** Sends the collection's documents through the bulk call; every one must be accepted. */
async function ingest(port, key, documents) {
  const agent = new http.Agent({ keepAlive: true });
  for (let start = 0; start < documents.length; start += BATCH) {
    const items = documents.slice(start, start + BATCH).map(({ id, title, body }) => ({
      document: {
        id,
        semantic_identifier: title || `Document ${id}`,
        title,
        // Two Cranfield records are empty: a document with no section.
        sections: body ? [{ text: body }] : [],
        metadata: {},
      },
    }));
    for (;;) {
      const { status, text } = await postJson({ agent, port, path: "/api/svc-api/ingestion/batch", key, body: JSON.stringify({ documents: items }) });
      if (status === 429) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (status !== 200) throw new Error(`batch ingestion answered ${status}: ${text.slice(0, 300)}`);
      const refused = JSON.parse(text).results.filter((result) => result.error);
      if (refused.length > 0) throw new Error(`batch ingestion refused ${refused.length} documents: ${JSON.stringify(refused[0]).slice(0, 300)}`);
      break;
    }
  }
  agent.destroy();
}

/** Searches svc through REST: the ranked document ids, the text actually searched, and what happened. */
function svcSearcher(base, key, timings) {
  const post = async (query) => {
    const started = performance.now();
    const response = await fetch(`${base}/api/svc-api/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query, limit: 10 }),
    });
    const text = await response.text();
    timings.push(performance.now() - started);
    return { status: response.status, text };
  };
  return async (query) => {
    let sent = query;
    let answer = await post(sent);
    let truncated = false;
    if (answer.status === 422) {
      truncated = true;
      sent = truncateQuery(query);
      answer = await post(sent);
    }
    if (answer.status !== 200) {
      log(`  search ${JSON.stringify(sent).slice(0, 80)} answered ${answer.status}: ${answer.text.slice(0, 160)}`);
      return { ranked: [], sent, truncated, failed: true };
    }
    return { ranked: JSON.parse(answer.text).results.map((result) => result.document_id), sent, truncated, failed: false };
  };
}

/**
 * The variants every query is searched in, on both engines: as typed; with one typo (the same for both)
 * in a word drawn at random, or in its rarest word; as keywords (its 3 rarest words), clean and with
 * one typo. Each variant with typos has its own seeded draws; `base`: the variant its × compares with.
 */
const VARIANTS = [
  { name: "clean" },
  { name: "typo, random word", seed: SEED, base: "clean", make: (query, random) => injectTypo(query, random, stopWords) },
  { name: "typo, rarest word", seed: SEED + 1, base: "clean", make: (query, random, rarity) => injectTypo(query, random, stopWords, rarity) },
  { name: "keywords (3 rarest words)", make: (query, random, rarity) => ({ query: keywordQuery(query, stopWords, rarity), typo: null }) },
  {
    name: "keywords, typo in one",
    seed: SEED + 2,
    base: "keywords (3 rarest words)",
    make: (query, random, rarity) => injectTypo(keywordQuery(query, stopWords, rarity), random, stopWords),
  },
];

/** Every query in every variant on both engines: rankings per engine and variant, and what happened. */
async function searchAll(collection, searchSvc, reference) {
  const randoms = VARIANTS.map((variant) => (variant.seed === undefined ? null : createRandom(variant.seed)));
  const runs = Object.fromEntries(VARIANTS.map(({ name }) => [name, { svc: new Map(), reference: new Map() }]));
  const queries = [];
  const notes = { truncated: [], failed: [], typos: {}, referenceWhole: new Map() };
  const svcEmptyReferenceNot = Object.fromEntries(VARIANTS.map(({ name }) => [name, 0]));
  for (const { id, text } of collection.queries) {
    const clean = await searchSvc(text);
    if (clean.truncated) notes.truncated.push(id);
    notes.referenceWhole.set(id, reference.search(text));
    for (const [index, variant] of VARIANTS.entries()) {
      let answer = clean;
      if (variant.make) {
        const { query, typo } = variant.make(clean.sent, randoms[index], reference.documentFrequency);
        if (typo !== null) (notes.typos[variant.name] ??= []).push(typo);
        answer = await searchSvc(query);
      }
      if (answer.failed) notes.failed.push(`${id} (${variant.name})`);
      const referenceRanked = reference.search(answer.sent);
      runs[variant.name].svc.set(id, answer.ranked);
      runs[variant.name].reference.set(id, referenceRanked);
      const gains = collection.judgments.get(id);
      queries.push({
        id,
        variant: variant.name,
        query: answer.sent,
        svc: { ndcg: ndcgAt10(answer.ranked, gains), ranked: answer.ranked },
        reference: { ndcg: ndcgAt10(referenceRanked, gains), ranked: referenceRanked },
      });
      if (answer.ranked.length === 0 && referenceRanked.length > 0) svcEmptyReferenceNot[variant.name] += 1;
    }
  }
  const scores = Object.fromEntries(
    Object.entries(runs).map(([name, engines]) => [
      name,
      { svc: score(engines.svc, collection.judgments), reference: score(engines.reference, collection.judgments) },
    ]),
  );
  notes.referenceWholeScore = score(notes.referenceWhole, collection.judgments);
  return { scores, queries, notes: { ...notes, svcEmptyReferenceNot } };
}

async function measureCollection(name) {
  const collection = loadCollection(name);
  const database = `svc_bench_relevance_${name}`;
  const url = databaseUrl(database);
  const indexDir = path.join(os.tmpdir(), `svc-bench-relevance-${name}`);
  await recreateDatabase(database);
  rmSync(indexDir, { recursive: true, force: true });
  const key = createAdminKey(url);
  process.env.SVC_INDEX_DIR = indexDir;
  const processes = new ProcessGroup();
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const web = processes.startWebServer(url, port);
  const worker = processes.startWorker(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await waitForHttp(`${base}/api/health`);
    const started = performance.now();
    await ingest(port, key, collection.documents);
    await waitForIndexed(db, INDEX_DEADLINE_MS);
    await waitForMerged(db, indexDir, INDEX_DEADLINE_MS);
    const { rows: [indexed] } = await db.query("SELECT count(*)::int AS documents, coalesce(sum(chunk_count), 0)::int AS chunks FROM document WHERE indexing_status = 'indexed'");
    const ingestSeconds = (performance.now() - started) / 1000;
    log(`${name}: ${indexed.documents} documents (${indexed.chunks} chunks) ingested and indexed in ${ingestSeconds.toFixed(0)} s; searching ${collection.queries.length} queries`);
    if (indexed.documents !== collection.documents.length) throw new Error(`${indexed.documents} of ${collection.documents.length} documents indexed`);
    const reference = createReferenceEngine(collection.documents, stopWords);
    const timings = [];
    try {
      const searched = await searchAll(collection, svcSearcher(base, key, timings), reference);
      timings.sort((a, b) => a - b);
      return { collection, indexed, ingestSeconds, latency: { p50: percentile(timings, 50), p95: percentile(timings, 95) }, ...searched };
    } finally {
      reference.close();
    }
  } finally {
    await db.end();
    await processes.stop(worker);
    await processes.stop(web);
    if (!options.keep) {
      await dropDatabase(database);
      rmSync(indexDir, { recursive: true, force: true });
    }
  }
}

function report({ collection, indexed, ingestSeconds, latency, scores, notes }) {
  const f = (value) => value.toFixed(3);
  const n = collection.queries.length;
  const examples = (name) => notes.typos[name].filter(Boolean).slice(0, 3).join(", ");
  console.log(`\n### ${collection.name}: ${collection.description}\n`);
  console.log(
    `${indexed.documents} documents (${indexed.chunks} chunks) through the bulk call, indexed and merged in ${ingestSeconds.toFixed(0)} s; ${n} queries, ` +
      `means over all of them. Typos: one edit in one word of 4+ letters per query, seeds ${SEED}, ${SEED + 1} and ${SEED + 2} ` +
      `(random word: ${examples("typo, random word")}; rarest word: ${examples("typo, rarest word")}; ` +
      `keywords: ${examples("keywords, typo in one")}). × compares with the same queries without the typo.\n`,
  );
  console.log(`| engine | queries | nDCG@10 | × clean | P@10 | MRR@10 | no result (of ${n}) |`);
  console.log("|---|---|---|---|---|---|---|");
  for (const [engine, label] of [
    ["svc", "svc (REST, limit 10)"],
    ["reference", "reference BM25 (FTS5, words OR-ed)"],
  ]) {
    for (const { name, base } of VARIANTS) {
      const run = scores[name][engine];
      const baseline = base && scores[base][engine].ndcg;
      const ratio = !base ? "" : baseline > 0 ? `${(run.ndcg / baseline).toFixed(2)}×` : "–";
      console.log(`| ${label} | ${name} | ${f(run.ndcg)} | ${ratio} | ${f(run.precision)} | ${f(run.mrr)} | ${run.noResult} |`);
    }
  }
  const empty = VARIANTS.map(({ name }) => `${name} ${notes.svcEmptyReferenceNot[name]}`).join("; ");
  console.log(
    `\nsvc found nothing where the reference found something: ${empty}. ` +
      `Refused by svc as too long (422) and sent cut to its limits: ${notes.truncated.length}` +
      (notes.truncated.length > 0 ? ` (queries ${notes.truncated.join(", ")}; the reference with every query whole: nDCG@10 ${f(notes.referenceWholeScore.ndcg)})` : "") +
      `. Failed searches (counted as no result): ${notes.failed.length}${notes.failed.length > 0 ? ` (${notes.failed.join(", ")})` : ""}. ` +
      `svc's answers (every request, one at a time): p50 ${latency.p50.toFixed(0)} ms, p95 ${latency.p95.toFixed(0)} ms.`,
  );
}

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
const branch = execFileSync("git", ["rev-parse", "--abbrev-ref", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
console.log(`bench/relevance at ${commit} (${branch}), ${new Date().toISOString()}, ${describeMachine()}`);
const measured = [];
for (const name of options.collections.split(",")) {
  measured.push(await measureCollection(name));
  report(measured.at(-1));
}
if (options.json) {
  const perQuery = measured.map(({ collection, scores, queries }) => ({ collection: collection.name, scores, queries }));
  writeFileSync(options.json, JSON.stringify({ commit, branch, seed: SEED, collections: perQuery }, null, 1));
}
