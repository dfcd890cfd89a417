// bench/search-rest: search through svc's REST API on a corpus that svc itself indexed (issues 11 and 19).
//
// For each size: a fresh database (svc_bench_search_rest_<size>), 20 pairs (10 public, 10 private),
// the production web server and worker; seeded Zipf documents (bench/search/corpus.mjs: ~80-word
// sections, 8 a document) ingested one by one over REST by keep-alive clients and indexed by the real
// worker, until the chunks reach the size. Then three documents dominated by the query words are
// ingested last, and every query class (issue 19, and issue 37's 8-word questions) is timed through
// `POST /api/svc-api/search` with `limit` 10, one query at a time, with an admin key (sees everything)
// and with a curator key scoped to one private pair (the access rule filters: public pairs plus that pair). Also timed on the same data:
// a hand-tuned PostgreSQL top-k (chunks matching a `websearch_to_tsquery`, ranked by `ts_rank_cd`,
// LIMIT 10; no snippets, no access rule), the best exact answer PostgreSQL gives without an extension.
//
//   pnpm build && pnpm --filter @svc/bench search-rest --chunks 100000,1000000
//
// Options: --chunks list of sizes (100000), --runs R timing rounds (3; medians of their p50/p95),
// --queries N per class, key and round (30), --class-seconds S: a class stops after S seconds once it
// has 5 queries (60; bounds PostgreSQL's slow classes), --sections per document (8, about one chunk
// each), --concurrency C ingestion clients (16), --batch N documents per call (1: the single call; more
// goes through the bulk call, which builds a large corpus faster), --seed (19), --keep (keep the databases and index
// directories), --name N (a suffix to the database's and index directory's names, so that runs on a shared
// server do not meet), --reuse (measure a database a previous --keep run built, skipping ingestion), --no-topk,
// --ingest-rate R: time the queries under steady ingestion, R documents a second (open loop) that
// re-ingest corpus documents with new text (the corpus keeps its size), from a minute before the first
// query; the unmerged tail of the search index (rows the worker has not merged yet) is sampled every
// second and reported (0: a quiet index), and so is how long each accepted update took to be indexed
// (its 200 to its indexed_at). --rebuilds N: before the queries, rebuild the search index N
// times through `POST /manage/admin/search-index/rebuild` (a new generation filled from PostgreSQL,
// merged, swapped in) and report how long each took, from the request until the new generation is
// current (0). --after-load (issue 44 §2): instead of the steady-state rounds, the corpus is bulk-loaded
// into an empty index (use --batch and --sections 1 for one-chunk documents), the dominant documents
// last, and every class is timed in turn (admin key) for --after-seconds (60) from the moment the last
// document is indexed, merged or not, a check of the one-word needle every 8th search (the needle is
// loaded last, so only after the load); with
// --search-during the same loop also runs during the load (a searched table is merged as rows come).
// Env: DATABASE_URL (the server to create databases on), BENCH_NODE_ARGS (node flags of web and worker),
// BENCH_MAINTENANCE=worker (merges in the worker's process instead of svc start's maintenance process).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  databaseUrl,
  describeMachine,
  median,
  percentile,
  postJson,
  processMemory,
  ProcessGroup,
  recreateDatabase,
  createAdminKey,
  root,
  runSvc,
  serverUrl,
  waitForHttp,
} from "../lib/harness.mjs";
import { closeSearchIndex, openGenerationTable, openSearchIndex } from "@svc/search-index";
import { waitForIndexed as waitForIndexedWithin, waitForMerged as waitForMergedWithin } from "../lib/index-state.mjs";
import { chunkText, createRandom, createVocabulary } from "../search/corpus.mjs";
import { corpusPlace, queryClasses, samplePhrases } from "./queries.mjs";

const { values: options } = parseArgs({
  // `pnpm run x -- --flag` hands the `--` on; without this, every flag after it would be a positional.
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  options: {
    chunks: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
    queries: { type: "string", default: "30" },
    "class-seconds": { type: "string", default: "60" },
    concurrency: { type: "string", default: "16" },
    batch: { type: "string", default: "1" },
    sections: { type: "string", default: "8" },
    seed: { type: "string", default: "19" },
    keep: { type: "boolean", default: false },
    name: { type: "string", default: "" },
    reuse: { type: "boolean", default: false },
    topk: { type: "boolean", default: true },
    "ingest-rate": { type: "string", default: "0" },
    rebuilds: { type: "string", default: "0" },
    "after-load": { type: "boolean", default: false },
    "after-seconds": { type: "string", default: "60" },
    "search-during": { type: "boolean", default: false },
  },
  allowNegative: true,
});
const SIZES = options.chunks.split(",").map(Number);
const RUNS = Number(options.runs);
const QUERIES = Number(options.queries);
const CLASS_SECONDS = Number(options["class-seconds"]);
const CONCURRENCY = Number(options.concurrency);
const BATCH = Number(options.batch);
const SEED = Number(options.seed);
const SECTIONS_PER_DOCUMENT = Number(options.sections);
const INGEST_RATE = Number(options["ingest-rate"]);
const REBUILDS = Number(options.rebuilds);
const AFTER_LOAD = options["after-load"];
const AFTER_SECONDS = Number(options["after-seconds"]);
const SEARCH_DURING = options["search-during"];
/** In the --after-load loop, every NEEDLE_EVERY-th search is the one-word needle's ranking check. */
const NEEDLE_EVERY = 8;
const INGEST_SETTLE_SECONDS = 60;
const SETTLE_SEARCH_PAUSE_MS = 5_000;
const PAIRS = 20;
const SOURCES = ["web", "file", "confluence", "slack"];
const CALIBRATION_DOCUMENTS = 300;
const WARMUP_QUERIES = 3;
const WARMUP_ROUND_QUERIES = 10;
const MIN_QUERIES = 5;
const POLL_MS = 500;
const INDEX_DEADLINE_MS = 3 * 3600_000;
const log = (message) => process.stderr.write(`${message}\n`);
const load = () => os.loadavg()[0].toFixed(1);
const mib = (bytes) => Math.round(bytes / 2 ** 20);

const vocabulary = createVocabulary(SEED);
const word = (rank) => vocabulary.words[rank];

/** A port nobody listens on now. */
async function freePort() {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}


async function api(base, key, method, route, body) {
  const response = await fetch(`${base}/api${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Document `number` of the corpus: SECTIONS_PER_DOCUMENT sections of Zipf words, in one of the pairs. */
function makeDocument(random, number, pairIds) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const sections = Array.from({ length: SECTIONS_PER_DOCUMENT }, (_, i) => ({
    text: chunkText(random, vocabulary),
    link: `https://example.com/doc/${number}#${i}`,
  }));
  const document = {
    id: `bench-doc-${number}`,
    semantic_identifier: `Bench document ${number}`,
    source: pick(SOURCES),
    sections,
    metadata: { team: `team-${Math.floor(random() * 10)}` },
    doc_updated_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 700) * 86_400_000).toISOString(),
  };
  return JSON.stringify({ document, cc_pair_id: pick(pairIds) });
}

/**
 * Closed loop over `count` documents from `first`, one per call or BATCH per bulk call; a 429 (svc's
 * backpressure) is retried after a second.
 */
async function ingestRange(port, key, random, first, count, pairIds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = first;
  const end = first + count;
  let refused = 0;
  const claim = () => {
    const bodies = [];
    while (next < end && bodies.length < BATCH) bodies.push(makeDocument(random, next++, pairIds));
    return BATCH === 1 ? { path: "/api/svc-api/ingestion", body: bodies[0] } : { path: "/api/svc-api/ingestion/batch", body: `{"documents":[${bodies.join(",")}]}` };
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < end) {
        const { path: requestPath, body } = claim();
        for (;;) {
          const { status, text } = await postJson({ agent, port, path: requestPath, key, body });
          if (status === 429) {
            refused += 1;
            await new Promise((resolve) => setTimeout(resolve, 1000));
            continue;
          }
          if (status !== 200 || text.includes('"error"')) throw new Error(`ingestion answered ${status}: ${text.slice(0, 300)}`);
          break;
        }
      }
    }),
  );
  agent.destroy();
  return refused;
}

/** VACUUM (ANALYZE) of the whole database, as autovacuum would leave it; returns the seconds it took. */
async function vacuumDatabase(db) {
  const started = performance.now();
  await db.query("VACUUM (ANALYZE)");
  return ((performance.now() - started) / 1000).toFixed(1);
}

const waitForIndexed = (db) => waitForIndexedWithin(db, INDEX_DEADLINE_MS);
const waitForMerged = (db, indexDir) => waitForMergedWithin(db, indexDir, INDEX_DEADLINE_MS);

/**
 * Rebuilds the search index through REST and waits until the new generation is current: seconds
 * from the request until then, and from the job's start (a rebuild refused or canceled throws).
 */
async function timeRebuild(base, key) {
  const requested = performance.now();
  const { rebuild } = await api(base, key, "POST", "/manage/admin/search-index/rebuild", {});
  const deadline = Date.now() + INDEX_DEADLINE_MS;
  for (;;) {
    const status = await api(base, key, "GET", "/manage/admin/search-index/rebuild");
    const done = status.last_rebuild?.generation_id === rebuild.generation_id ? status.last_rebuild : null;
    if (done) {
      if (done.status !== "current" || done.docs_failed > 0) throw new Error(`rebuild ended ${JSON.stringify(done)}`);
      const seconds = (performance.now() - requested) / 1000;
      const ranSeconds = (Date.parse(done.completed_at) - Date.parse(done.started_at)) / 1000;
      return { seconds, ranSeconds, documents: done.docs_done };
    }
    if (Date.now() > deadline) throw new Error("rebuild still running after the deadline");
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function indexedTotals(db) {
  const { rows: [row] } = await db.query(`
    SELECT count(*)::int AS documents, coalesce(sum(chunk_count), 0)::int AS chunks,
      (extract(epoch FROM max(indexed_at)) * 1000)::float8 AS last_indexed_at
    FROM document WHERE indexing_status = 'indexed'`);
  return row;
}

/**
 * Documents that must rank first for their query: short, and nothing but the query's words. The
 * one-word document repeats its word 40 times: ts_rank_cd does not normalise by length, so a corpus
 * chunk holding the most common word ~20 times outranked a 20-fold repeat there (first 100k run).
 */
const DOMINANT = [
  { id: "bench-dominant-1", words: [word(0)], repeat: 40 },
  { id: "bench-dominant-2", words: [word(0), word(1)], repeat: 15 },
  { id: "bench-dominant-5", words: [word(0), word(1), word(2), word(3), word(4)], repeat: 10 },
];

function dominantBody({ id, words, repeat }, pairId) {
  const text = Array.from({ length: repeat }, () => words.join(" ")).join(" ");
  return JSON.stringify({
    document: { id, semantic_identifier: words.join(" "), title: words.join(" "), source: "web", sections: [{ text }], metadata: {} },
    cc_pair_id: pairId,
  });
}

async function timeQueries(search, makeQuery, budgetSeconds = CLASS_SECONDS) {
  for (let i = 0; i < WARMUP_QUERIES; i += 1) await search(makeQuery());
  const times = [];
  let results = 0;
  let failures = 0;
  const stopAt = performance.now() + budgetSeconds * 1000;
  while (times.length < QUERIES && (times.length < MIN_QUERIES || performance.now() < stopAt)) {
    const query = makeQuery();
    const started = performance.now();
    const outcome = await search(query);
    times.push(performance.now() - started);
    if (outcome === null) failures += 1;
    else results += outcome;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length, results: results / times.length, failures };
}

function restSearch(base, key) {
  return async (query) => {
    const response = await fetch(`${base}/api/svc-api/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query, limit: 10 }),
    });
    const text = await response.text();
    if (response.status !== 200) {
      log(`  search ${JSON.stringify(query).slice(0, 60)} answered ${response.status}: ${text.slice(0, 120)}`);
      return null;
    }
    return JSON.parse(text).results.length;
  };
}

/**
 * The hand-tuned PostgreSQL top-k on the same chunks: with the chunks' own weighted vector and GIN
 * when svc still has them, else on a copy built here (reported). Returns null when no chunk text is in
 * PostgreSQL.
 */
async function preparePostgresTopK(db) {
  const { rows: columns } = await db.query(`
    SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'document_chunk'`);
  const names = new Set(columns.map((row) => row.column_name));
  const { rows: [generation] } = await db.query("SELECT id, text_search_config FROM index_generation WHERE status = 'current'");
  const config = generation.text_search_config;
  if (names.has("search_vector")) {
    return {
      note: "document_chunk's own search_vector and GIN",
      sql: `SELECT c.document_id, c.chunk_index, ts_rank_cd(c.search_vector, q) AS score
        FROM document_chunk c, websearch_to_tsquery('${config}', $1) q
        WHERE c.search_vector @@ q AND c.generation_id = ${generation.id}
        ORDER BY score DESC LIMIT 10`,
    };
  }
  if (!names.has("content")) return null;
  const started = performance.now();
  await db.query("DROP TABLE IF EXISTS bench_topk");
  await db.query(`CREATE TABLE bench_topk AS SELECT document_id, chunk_index,
      setweight(to_tsvector('${config}', title_prefix), 'A') || setweight(to_tsvector('${config}', content), 'B')
        || setweight(to_tsvector('${config}', metadata_suffix), 'C') AS search_vector
    FROM document_chunk WHERE generation_id = ${generation.id}`);
  await db.query("CREATE INDEX ON bench_topk USING gin (search_vector)");
  await db.query("VACUUM ANALYZE bench_topk");
  return {
    note: `a copy of the chunks with svc's weighted vector and a GIN index, built in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    sql: `SELECT c.document_id, c.chunk_index, ts_rank_cd(c.search_vector, q) AS score
      FROM bench_topk c, websearch_to_tsquery('${config}', $1) q
      WHERE c.search_vector @@ q ORDER BY score DESC LIMIT 10`,
  };
}

async function checkRanking(search) {
  const outcomes = [];
  for (const dominant of DOMINANT) {
    const results = await search(dominant.words.join(" "));
    outcomes.push({ query: dominant.words.join(" "), first: results[0]?.document_id ?? null, ok: results[0]?.document_id === dominant.id });
  }
  return outcomes;
}

function rankingSearch(base, key) {
  return async (query) => (await api(base, key, "POST", "/svc-api/search", { query, limit: 10 })).results;
}

/**
 * Steady ingestion while queries are timed: INGEST_RATE documents a second, each sent when due (open
 * loop), re-ingesting random documents of the corpus's first `corpusDocuments` with new text. Samples
 * the search index's unmerged rows every second. `stop` waits for the answers, then until every
 * accepted update is indexed, and returns the counts and how long each took from its 200 to its
 * `indexed_at` (documents updated once in the run; a later update would move its `indexed_at`).
 */
function startLiveIngestion({ port, key, pairIds, corpusDocuments, indexDir, db }) {
  const random = createRandom(SEED + 7);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const answers = {};
  /** Accepted updates: document id → when its 200 arrived (ms), null once updated twice. */
  const accepted = new Map();
  let outstanding = 0;
  const startedAt = performance.now();
  let sent = 0;
  const sender = setInterval(() => {
    const due = Math.floor(((performance.now() - startedAt) / 1000) * INGEST_RATE);
    for (; sent < due; sent += 1) {
      const number = Math.floor(random() * corpusDocuments);
      const body = makeDocument(random, number, pairIds);
      outstanding += 1;
      void postJson({ agent, port, key, body, timeoutMs: 30_000 }).then(({ status }) => {
        outstanding -= 1;
        answers[status] = (answers[status] ?? 0) + 1;
        const id = `bench-doc-${number}`;
        if (status === 200) accepted.set(id, accepted.has(id) ? null : Date.now());
      });
    }
  }, 10);
  const sampler = sampleUnmerged(db, indexDir);
  return {
    async stop() {
      clearInterval(sender);
      const unmerged = await sampler.stop();
      while (outstanding > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      agent.destroy();
      const seconds = (performance.now() - startedAt) / 1000;
      const sorted = [...unmerged].sort((a, b) => a - b);
      await waitForIndexed(db);
      const once = [...accepted].filter(([, acceptedAt]) => acceptedAt !== null);
      const { rows } = await db.query(`SELECT id, (extract(epoch FROM indexed_at) * 1000)::float8 AS indexed_at FROM document WHERE id = ANY($1)`, [
        once.map(([id]) => id),
      ]);
      const indexedAt = new Map(rows.map((row) => [row.id, row.indexed_at]));
      const latencies = once.map(([id, acceptedAt]) => indexedAt.get(id) - acceptedAt).sort((a, b) => a - b);
      return {
        seconds,
        sent,
        answers,
        unmergedMedian: median(sorted) ?? 0,
        unmergedMax: sorted.at(-1) ?? 0,
        indexedP50: percentile(latencies, 50),
        indexedP95: percentile(latencies, 95),
        indexedMax: latencies.at(-1),
      };
    },
  };
}

async function buildCorpus({ db, port, key, pairIds, target, indexDir }) {
  const random = createRandom(SEED + 1);
  await ingestRange(port, key, random, 0, CALIBRATION_DOCUMENTS, pairIds);
  await waitForIndexed(db);
  const calibration = await indexedTotals(db);
  const chunksPerDocument = calibration.chunks / calibration.documents;
  const documents = Math.max(0, Math.ceil((target - calibration.chunks) / chunksPerDocument));
  log(`  calibration: ${calibration.documents} documents, ${calibration.chunks} chunks (${chunksPerDocument.toFixed(2)} a document); ingesting ${documents} more (load ${load()})`);
  await db.query("CHECKPOINT");
  const loadBefore = load();
  const started = Date.now();
  const wallStarted = performance.now();
  const refused = await ingestRange(port, key, random, CALIBRATION_DOCUMENTS, documents, pairIds);
  const acceptedSeconds = (performance.now() - wallStarted) / 1000;
  await waitForIndexed(db);
  const totals = await indexedTotals(db);
  const indexSeconds = (totals.last_indexed_at - started) / 1000;
  // Measured from when the wait starts, which is at or after the last indexed_at.
  const mergeStarted = Date.now();
  const mergeWait = await waitForMerged(db, indexDir);
  const mergedSeconds = mergeWait === null ? null : (mergeStarted + mergeWait * 1000 - started) / 1000;
  return {
    mergedSeconds,
    documents: totals.documents,
    chunks: totals.chunks,
    measuredDocuments: documents,
    acceptedSeconds,
    indexSeconds,
    docsPerSecond: documents / indexSeconds,
    chunksPerSecond: (totals.chunks - calibration.chunks) / indexSeconds,
    refused,
    load: `${loadBefore} → ${load()}`,
  };
}

/**
 * Rows of the current generation's table waiting for a merge, sampled every second until `stop()`,
 * which returns the samples (none while the table does not exist yet).
 */
function sampleUnmerged(db, indexDir) {
  const samples = [];
  let stopped = false;
  const running = (async () => {
    const index = await openSearchIndex({ uri: indexDir });
    try {
      let table = null;
      while (!stopped) {
        if (table === null) {
          const { rows: [generation] } = await db.query("SELECT id FROM index_generation WHERE status = 'current'");
          table = generation ? await openGenerationTable({ index, generationId: generation.id }).catch(() => null) : null;
        }
        if (table !== null) samples.push((await table.table.indexStats("text_idx").catch(() => undefined))?.numUnindexedRows ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    } finally {
      closeSearchIndex(index);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return samples;
    },
  };
}

/**
 * Searches one after another until `done()`: every class in turn, and with `needles` every
 * NEEDLE_EVERY-th search the one-word needle's query, checked for its document first (not during the
 * load: the needle is loaded last). Each search is recorded with its phase.
 */
async function searchLoop({ base, key, phrases, phase, done, searches, needles = true }) {
  const classes = Object.entries(queryClasses(createRandom(SEED + 200), phrases, vocabulary));
  const needle = DOMINANT[0];
  for (let turn = 0; !done(); turn += 1) {
    const isNeedle = needles && turn % NEEDLE_EVERY === NEEDLE_EVERY - 1;
    const [name, makeQuery] = isNeedle ? ["needle (one common word)", () => needle.words.join(" ")] : classes[turn % classes.length];
    const started = performance.now();
    const response = await fetch(`${base}/api/svc-api/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: makeQuery(), limit: 10 }),
    });
    const body = await response.text();
    const ms = performance.now() - started;
    const first = response.status === 200 ? JSON.parse(body).results[0]?.document_id : undefined;
    searches.push({ phase, name, ms, status: response.status, needleFirst: isNeedle ? first === needle.id : undefined });
  }
}

/**
 * --after-load: the corpus bulk-loaded into an empty index, the dominant documents last; searches
 * timed from the moment the last document is indexed (and, with --search-during, during the load).
 */
async function measureLoad({ base, port, key, pairIds, db, target, indexDir, label }) {
  const documents = Math.ceil(target / SECTIONS_PER_DOCUMENT);
  // The phrases of the first documents' first sections, drawn as the load will draw them.
  const draw = createRandom(SEED + 1);
  const phrases = Array.from({ length: 200 }, (_, number) => {
    const words = JSON.parse(makeDocument(draw, number, pairIds)).document.sections[0].text.split(" ");
    return `"${words[10]} ${words[11]}"`;
  });
  log(`${label}: bulk-loading ${documents} documents of ${SECTIONS_PER_DOCUMENT} section(s) into an empty index (load ${load()})`);
  const searches = [];
  const unmerged = sampleUnmerged(db, indexDir);
  let loaded = false;
  const during = SEARCH_DURING ? searchLoop({ base, key, phrases, phase: "during", done: () => loaded, searches, needles: false }) : Promise.resolve();
  const started = performance.now();
  const refused = await ingestRange(port, key, createRandom(SEED + 1), 0, documents, pairIds);
  const agent = new http.Agent({ keepAlive: true });
  for (const dominant of DOMINANT) {
    const { status, text } = await postJson({ agent, port, key, body: dominantBody(dominant, pairIds[0]) });
    if (status !== 200) throw new Error(`ingestion answered ${status}: ${text.slice(0, 300)}`);
  }
  agent.destroy();
  const acceptedSeconds = (performance.now() - started) / 1000;
  await waitForIndexed(db);
  const indexedSeconds = (performance.now() - started) / 1000;
  loaded = true;
  await during;
  const unmergedDuring = await unmerged.stop();
  const after = sampleUnmerged(db, indexDir);
  const afterStarted = performance.now();
  await searchLoop({ base, key, phrases, phase: "after", done: () => performance.now() - afterStarted > AFTER_SECONDS * 1000, searches });
  const unmergedAfter = await after.stop();
  return { label, target, load: { documents, refused, acceptedSeconds, indexedSeconds, totals: await indexedTotals(db) }, searches, unmergedDuring, unmergedAfter };
}

/** The --after-load figures: per phase, every search and each class, p50 / p95 and the needle's checks. */
function reportLoad({ label, load: loaded, searches, unmergedDuring, unmergedAfter }) {
  const ms = (value) => (value === undefined ? "–" : value.toFixed(0));
  const figures = (list) => {
    const times = list.map((search) => search.ms).sort((a, b) => a - b);
    return `${ms(percentile(times, 50))} / ${ms(percentile(times, 95))} | ${list.length}`;
  };
  const spread = (samples) => `${median([...samples].sort((a, b) => a - b)) ?? 0} / ${samples.reduce((most, value) => Math.max(most, value), 0)}`;
  console.log(`\n### ${label} --after-load: ${loaded.totals.chunks} chunks in ${loaded.totals.documents} documents\n`);
  console.log(
    `Load: ${loaded.documents} documents (+ ${DOMINANT.length} dominant, last) accepted in ${loaded.acceptedSeconds.toFixed(0)} s, all indexed at ` +
      `${loaded.indexedSeconds.toFixed(0)} s (429s retried: ${loaded.refused}); rows waiting for a merge, median / max: during ${spread(unmergedDuring)}, ` +
      `after ${spread(unmergedAfter)}.`,
  );
  for (const phase of ["during", "after"]) {
    const inPhase = searches.filter((search) => search.phase === phase);
    if (inPhase.length === 0) continue;
    const failed = inPhase.filter((search) => search.status !== 200).length;
    const needles = inPhase.filter((search) => search.needleFirst !== undefined);
    const firsts = inPhase.slice(0, 23);
    console.log(
      `\n${phase === "after" ? `After (first ${AFTER_SECONDS} s once all indexed)` : "During the load"}: ${inPhase.length} searches, ${failed} not 200; ` +
        `first search ${ms(inPhase[0].ms)} ms, first 23 p50 / p95 ${figures(firsts).split(" | ")[0]} ms; ` +
        (needles.length === 0
          ? "no needle checks (the needle is loaded last)"
          : `needle first in ${needles.filter((search) => search.needleFirst).length} of ${needles.length} checks${needles[0].needleFirst ? "" : " (not in the first)"}`) +
        ".\n",
    );
    console.log("| class | p50 / p95 ms | n |\n|---|---|---|");
    console.log(`| every search | ${figures(inPhase)} |`);
    for (const name of [...new Set(inPhase.map((search) => search.name))]) console.log(`| ${name} | ${figures(inPhase.filter((search) => search.name === name))} |`);
  }
}

async function measureSize(target) {
  const { label, database, indexDir } = corpusPlace(target, options.name);
  const url = databaseUrl(database);
  const processes = new ProcessGroup();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // PostgreSQL's slow classes must finish to be measured; the index's timeout is not what is measured here.
  const serverEnv = { SVC_INDEX_DIR: indexDir, SVC_SEARCH_TIMEOUT_MS: "600000", SVC_STATEMENT_TIMEOUT_MS: "600000" };
  const db = new pg.Client({ connectionString: serverUrl });
  await db.connect();
  const { rowCount: exists } = await db.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
  await db.end();
  const reuse = options.reuse && exists === 1;
  if (!reuse) {
    await recreateDatabase(database);
    rmSync(indexDir, { recursive: true, force: true });
  }
  const adminKey = createAdminKey(url);
  Object.assign(process.env, serverEnv);
  const web = processes.startWebServer(url, port);
  // As `svc start` runs them: the index's merges in the maintenance process, beside the worker
  // (BENCH_MAINTENANCE=worker: in the worker's process, as before issue 44, for an A/B).
  const inWorker = process.env.BENCH_MAINTENANCE === "worker";
  const worker = processes.startWorker(url, { SVC_WORKER_MAINTAINS_INDEX: String(inWorker) });
  const maintenance = inWorker ? null : processes.startMaintenance(url);
  const targetDb = new pg.Client({ connectionString: url });
  await targetDb.connect();
  try {
    await waitForHttp(`${base}/api/health`);
    let build = null;
    let pairIds;
    if (reuse) {
      const { rows } = await targetDb.query("SELECT value FROM bench_meta WHERE key = 'pairs'");
      pairIds = JSON.parse(rows[0].value);
      log(`${label}: reusing ${database}`);
      // What an earlier run left queued or unmerged (an --ingest-rate run stopped midway) is done first.
      await waitForIndexed(targetDb);
      await waitForMerged(targetDb, indexDir);
    } else {
      pairIds = [];
      for (let i = 0; i < PAIRS; i += 1) {
        const created = await api(base, adminKey, "POST", "/manage/admin/cc-pair", {
          name: `bench pair ${i}`,
          source: SOURCES[i % SOURCES.length],
          access_type: i < PAIRS / 2 ? "public" : "private",
        });
        pairIds.push(created.cc_pair_id);
      }
      await targetDb.query("CREATE TABLE bench_meta (key text PRIMARY KEY, value text)");
      await targetDb.query("INSERT INTO bench_meta VALUES ('pairs', $1)", [JSON.stringify(pairIds)]);
      if (AFTER_LOAD) return await measureLoad({ base, port, key: adminKey, pairIds, db: targetDb, target, indexDir, label });
      log(`${label}: building ${target} chunks through REST and the worker (load ${load()})`);
      build = await buildCorpus({ db: targetDb, port, key: adminKey, pairIds, target, indexDir });
      log(`  built: ${JSON.stringify(build)}`);
      // Ingested last: they must still rank first.
      const agent = new http.Agent({ keepAlive: true });
      for (const dominant of DOMINANT) {
        const { status, text } = await postJson({ agent, port, key: adminKey, body: dominantBody(dominant, pairIds[0]) });
        if (status !== 200) throw new Error(`ingestion answered ${status}: ${text.slice(0, 300)}`);
      }
      agent.destroy();
      await waitForIndexed(targetDb);
      await waitForMerged(targetDb, indexDir);
    }
    // A live server's autovacuum clears what earlier runs left (each rebuild deletes the retired
    // generation's chunks); this machine's server runs with it off, and a rebuild into a table holding
    // millions of dead rows was ~30 % slower.
    log(`  vacuum: ${await vacuumDatabase(targetDb)} s (load ${load()})`);
    const rebuilds = [];
    for (let i = 0; i < REBUILDS; i += 1) {
      rebuilds.push(await timeRebuild(base, adminKey));
      log(`  rebuild ${i + 1}: ${JSON.stringify(rebuilds.at(-1))} (load ${load()})`);
    }
    const workerMemory = processMemory(worker.pid);
    // A curator scoped to one private pair: public pairs' documents plus that pair's.
    const curatorKey = runSvc(url, ["keys", "create", "--name", "bench-curator", "--role", "curator", "--scope", String(pairIds.at(-1))]);
    const totals = await indexedTotals(targetDb);
    const phrases = await samplePhrases(targetDb);

    const ranking = {
      admin: await checkRanking(rankingSearch(base, adminKey)),
      curator: await checkRanking(rankingSearch(base, curatorKey)),
    };
    log(`  ranking: ${JSON.stringify(ranking)}`);

    const topK = options.topk ? await preparePostgresTopK(targetDb) : null;
    // Steady ingestion starts a minute before the first query, so the worker's merges have reached
    // their rhythm (at 1 M one merge takes tens of seconds) when the timing begins. A search every few
    // seconds meanwhile, as on a live system: the worker merges new rows as they come only while
    // searches read the index (MergeSchedule), and would otherwise let them gather.
    const live =
      INGEST_RATE > 0 ? startLiveIngestion({ port, key: adminKey, pairIds, corpusDocuments: totals.documents - DOMINANT.length, indexDir, db: targetDb }) : null;
    for (const settled = Date.now() + INGEST_SETTLE_SECONDS * 1000; live && Date.now() < settled; ) {
      await restSearch(base, adminKey)(vocabulary.words[0]);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_SEARCH_PAUSE_MS));
    }
    // An untimed round first, every class for both keys (queries of their own seed): whichever size a
    // run measured first came out ~1.5× slower at p95 in either order (fresh server processes, a cold
    // client), which made the 1 M / 100 k ratio depend on the order of --chunks.
    for (const makeQuery of Object.values(queryClasses(createRandom(SEED + 99), phrases, vocabulary))) {
      for (let i = 0; i < WARMUP_ROUND_QUERIES; i += 1) {
        const query = makeQuery();
        await restSearch(base, adminKey)(query);
        await restSearch(base, curatorKey)(query);
      }
    }
    const rounds = [];
    for (let run = 0; run < RUNS; run += 1) {
      const random = createRandom(SEED + 100 + run);
      const classes = queryClasses(random, phrases, vocabulary);
      const round = {};
      for (const [name, makeQuery] of Object.entries(classes)) {
        // The same queries for every caller of a round: regenerate them from a copy of the seed.
        const queries = Array.from({ length: QUERIES + WARMUP_QUERIES }, makeQuery);
        const replay = () => {
          let i = 0;
          return () => queries[i++ % queries.length];
        };
        const admin = await timeQueries(restSearch(base, adminKey), replay());
        const curator = await timeQueries(restSearch(base, curatorKey), replay());
        let postgres = null;
        if (topK) {
          postgres = await timeQueries(async (query) => (await targetDb.query(topK.sql, [query])).rowCount, replay());
        }
        round[name] = { admin, curator, postgres };
        log(
          `  run ${run + 1} ${name}: admin p50 ${admin.p50.toFixed(1)} p95 ${admin.p95.toFixed(1)} (n ${admin.n}, ${admin.results.toFixed(1)} results)` +
            `; curator p50 ${curator.p50.toFixed(1)} p95 ${curator.p95.toFixed(1)} (n ${curator.n})` +
            (postgres ? `; PostgreSQL top-k p50 ${postgres.p50.toFixed(1)} p95 ${postgres.p95.toFixed(1)} (n ${postgres.n})` : "") +
            `; load ${load()}`,
        );
      }
      rounds.push(round);
    }
    const ingestion = await live?.stop();
    if (ingestion) log(`  live ingestion: ${JSON.stringify(ingestion)}`);
    const webMemory = processMemory(web.pid);
    const workerNow = processMemory(worker.pid);
    return { label, target, totals, build, rebuilds, ranking, rounds, ingestion, topKNote: topK?.note ?? "no chunk text in PostgreSQL", webMemory, workerMemory: { rss: workerNow.rss, peak: workerMemory.peak } };
  } finally {
    await targetDb.end();
    await processes.stop(worker);
    if (maintenance) await processes.stop(maintenance);
    await processes.stop(web);
    if (!options.keep) {
      const drop = new pg.Client({ connectionString: serverUrl });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await drop.end();
      rmSync(indexDir, { recursive: true, force: true });
    }
  }
}

function report(result) {
  const { label, totals, build, rebuilds, ranking, rounds, ingestion, webMemory, workerMemory } = result;
  const classNames = Object.keys(rounds[0]);
  const med = (name, caller, field) => median(rounds.map((round) => round[name][caller]?.[field]).filter((value) => value !== undefined));
  const fmt = (value) => (value === undefined || Number.isNaN(value) ? "–" : value.toFixed(1));
  console.log(`\n### ${label}: ${totals.chunks} chunks in ${totals.documents} documents\n`);
  if (build) {
    console.log(
      `Build through REST + worker: ${build.measuredDocuments} documents accepted in ${build.acceptedSeconds.toFixed(0)} s, all indexed ` +
        `${build.indexSeconds.toFixed(0)} s after the first request: ${build.docsPerSecond.toFixed(0)} documents/s, ` +
        `${build.chunksPerSecond.toFixed(0)} chunks/s (429s retried: ${build.refused}; load ${build.load})` +
        (build.mergedSeconds === null ? "." : `; every row merged into the search index ${build.mergedSeconds.toFixed(0)} s after the first request.`),
    );
  }
  if (rebuilds.length > 0) {
    const seconds = median(rebuilds.map((rebuild) => rebuild.seconds));
    console.log(
      `Rebuild through REST (${rebuilds.length}; request until the new generation is current): ${rebuilds.map((rebuild) => rebuild.seconds.toFixed(1)).join(", ")} s, ` +
        `median ${seconds.toFixed(1)} s: ${(totals.chunks / seconds).toFixed(0)} chunks/s, ${(totals.documents / seconds).toFixed(0)} documents/s ` +
        `(the job itself: ${rebuilds.map((rebuild) => rebuild.ranSeconds.toFixed(1)).join(", ")} s).`,
    );
  }
  console.log(
    `Memory: web RSS ${mib(webMemory.rss)} MiB (peak ${mib(webMemory.peak)}), worker RSS ${mib(workerMemory.rss)} MiB (peak while indexing ${mib(workerMemory.peak)}).`,
  );
  if (ingestion) {
    console.log(
      `Timed under steady ingestion: ${INGEST_RATE} documents/s offered (${ingestion.sent} in ${ingestion.seconds.toFixed(0)} s, re-ingesting corpus documents), ` +
        `answers ${JSON.stringify(ingestion.answers)}; rows not yet merged into the search index, sampled every second: median ${ingestion.unmergedMedian}, max ${ingestion.unmergedMax}; ` +
        `accepted → indexed p50 ${ingestion.indexedP50?.toFixed(0)} ms, p95 ${ingestion.indexedP95?.toFixed(0)} ms, max ${ingestion.indexedMax?.toFixed(0)} ms.`,
    );
  }
  const rank = (outcomes) => outcomes.map((o) => `${o.ok ? "first" : `NOT first (${o.first})`} for "${o.query}"`).join(", ");
  console.log(`Exact ranking (dominant documents ingested last): admin ${rank(ranking.admin)}; curator ${rank(ranking.curator)}.`);
  console.log(`PostgreSQL top-k: ${options.topk ? result.topKNote : "not timed (--no-topk)"}. Medians of ${rounds.length} rounds; n = queries a round.\n`);
  console.log("| class | admin p50 ms | admin p95 ms | curator p50 ms | curator p95 ms | results (admin) | n | PostgreSQL top-k p50 / p95 ms | p95 admin / top-k |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const name of classNames) {
    const adminP95 = med(name, "admin", "p95");
    const topP95 = med(name, "postgres", "p95");
    const failures = rounds.reduce((sum, round) => sum + round[name].admin.failures + round[name].curator.failures, 0);
    console.log(
      `| ${name} | ${fmt(med(name, "admin", "p50"))} | ${fmt(adminP95)} | ${fmt(med(name, "curator", "p50"))} | ${fmt(med(name, "curator", "p95"))} | ` +
        `${fmt(med(name, "admin", "results"))} | ${med(name, "admin", "n")}${failures ? ` (${failures} failed)` : ""} | ` +
        `${fmt(med(name, "postgres", "p50"))} / ${fmt(topP95)} | ${topP95 ? (adminP95 / topP95).toFixed(2) : "–"} |`,
    );
  }
}

log(`bench/search-rest: sizes ${SIZES.join(", ")}; ${RUNS} rounds of ${QUERIES} queries a class; ${describeMachine()}; load ${load()}`);
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
console.log(`bench/search-rest at ${commit}, ${new Date().toISOString()}, ${describeMachine()}`);
for (const size of SIZES) {
  const result = await measureSize(size);
  if (AFTER_LOAD) reportLoad(result);
  else report(result);
}
