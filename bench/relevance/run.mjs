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
// (reference-bm25.mjs). Then the typo variant on both engines: each query with one typo injected into
// one word (seeded; evaluate.mjs). Reported per collection and engine: nDCG@10 (linear gains, graded
// where the judgments are), P@10, MRR@10 (means over the judged queries) and queries with no result.
//
//   pnpm build && pnpm --filter @svc/bench relevance
//
// Options: --collections list (cranfield,cisi), --seed of the typos (37), --keep (keep the databases
// and index directories). Env: DATABASE_URL (the server to create databases on), BENCH_NODE_ARGS.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
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
import { injectTypo, score } from "./evaluate.mjs";
import { createReferenceEngine } from "./reference-bm25.mjs";

const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  options: {
    collections: { type: "string", default: "cranfield,cisi" },
    seed: { type: "string", default: "37" },
    keep: { type: "boolean", default: false },
  },
});
const SEED = Number(options.seed);
const BATCH = 250;
const INDEX_DEADLINE_MS = 30 * 60_000;
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

/** Every query on both engines: clean, then with one typo each (the same typos for both). */
async function searchAll(collection, searchSvc, reference) {
  const random = createRandom(SEED);
  const runs = { svc: new Map(), reference: new Map(), svcTypo: new Map(), referenceTypo: new Map(), referenceWhole: new Map() };
  const notes = { truncated: [], failed: [], typos: [], svcEmptyReferenceNot: { clean: 0, typo: 0 } };
  for (const { id, text } of collection.queries) {
    const clean = await searchSvc(text);
    if (clean.truncated) notes.truncated.push(id);
    if (clean.failed) notes.failed.push(id);
    runs.svc.set(id, clean.ranked);
    runs.reference.set(id, reference.search(clean.sent));
    runs.referenceWhole.set(id, reference.search(text));
    const { query: typoQuery, typo } = injectTypo(clean.sent, random, stopWords);
    notes.typos.push(typo);
    const typoed = await searchSvc(typoQuery);
    if (typoed.failed) notes.failed.push(`${id} (typo)`);
    runs.svcTypo.set(id, typoed.ranked);
    runs.referenceTypo.set(id, reference.search(typoed.sent));
    if (clean.ranked.length === 0 && runs.reference.get(id).length > 0) notes.svcEmptyReferenceNot.clean += 1;
    if (typoed.ranked.length === 0 && runs.referenceTypo.get(id).length > 0) notes.svcEmptyReferenceNot.typo += 1;
  }
  const scores = Object.fromEntries(Object.entries(runs).map(([name, rankings]) => [name, score(rankings, collection.judgments)]));
  return { scores, notes };
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
  const row = (engine, clean, typo) =>
    `| ${engine} | ${f(clean.ndcg)} | ${f(typo.ndcg)} (${(typo.ndcg / clean.ndcg).toFixed(2)}×) | ${f(clean.precision)} / ${f(typo.precision)} | ` +
    `${f(clean.mrr)} / ${f(typo.mrr)} | ${clean.noResult} / ${typo.noResult} |`;
  const n = collection.queries.length;
  console.log(`\n### ${collection.name}: ${collection.description}\n`);
  console.log(
    `${indexed.documents} documents (${indexed.chunks} chunks) through the bulk call, indexed and merged in ${ingestSeconds.toFixed(0)} s; ${n} queries, ` +
      `means over all of them. Typo: one edit in one word of 4+ letters per query, seed ${SEED} (e.g. ${notes.typos.filter(Boolean).slice(0, 3).join(", ")}).\n`,
  );
  console.log(`| engine | nDCG@10 clean | nDCG@10 typo (typo / clean) | P@10 clean / typo | MRR@10 clean / typo | no result clean / typo (of ${n}) |`);
  console.log("|---|---|---|---|---|---|");
  console.log(row("svc (REST, limit 10)", scores.svc, scores.svcTypo));
  console.log(row("reference BM25 (SQLite FTS5, words OR-ed)", scores.reference, scores.referenceTypo));
  console.log(
    `\nsvc found nothing where the reference found something: ${notes.svcEmptyReferenceNot.clean} clean, ${notes.svcEmptyReferenceNot.typo} typo. ` +
      `Refused by svc as too long (422) and sent cut to its limits: ${notes.truncated.length}` +
      (notes.truncated.length > 0 ? ` (queries ${notes.truncated.join(", ")}; the reference on their whole text: nDCG@10 ${f(scores.referenceWhole.ndcg)})` : "") +
      `. Failed searches (counted as no result): ${notes.failed.length}${notes.failed.length > 0 ? ` (${notes.failed.join(", ")})` : ""}. ` +
      `svc's answers (every request, one at a time): p50 ${latency.p50.toFixed(0)} ms, p95 ${latency.p95.toFixed(0)} ms.`,
  );
}

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
const branch = execFileSync("git", ["rev-parse", "--abbrev-ref", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
console.log(`bench/relevance at ${commit} (${branch}), ${new Date().toISOString()}, ${describeMachine()}`);
for (const name of options.collections.split(",")) report(await measureCollection(name));
