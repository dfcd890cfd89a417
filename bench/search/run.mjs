// bench/search: the search index package on its own (no PostgreSQL, no HTTP). Loads N chunks of
// seeded Zipf text straight into @svc/search-index, merges them into the FTS index, then times the
// query classes of issue 19 (limit 10) for a caller who sees everything and for one whose access
// rule filters inside the query. Prints p50/p95 per class and the load, merge and memory figures.
//
//   pnpm --filter @svc/bench run search -- --chunks 100000
//
// Options: --chunks N (100,000), --runs R timed queries per class and caller (100), --seed S (19),
// --dir D (a fresh temporary directory, removed at the end unless --keep), --reuse (query the index
// already in --dir, built by an earlier --keep run with the same --chunks and --seed: no load, so the
// RSS printed is the searching process's own), --optimize (with --reuse: run optimizeGenerationTable
// first, which also builds the indexes a newer package has and the table lacks; its time is printed),
// --pg-topk (also time issue 11's hand-tuned PostgreSQL top-k on the same chunks, COPYed into the
// database svc_bench_pg_topk on DATABASE_URL's server, dropped at the end unless --keep; with --reuse
// the kept one is used), --pg-seconds S (a PostgreSQL class stops after S seconds once it has 5
// queries: 30), --no-index (time only PostgreSQL), --ingest-rate R (then time the classes again while
// search/update-stream.mjs, a process of its own, re-indexes R documents a second, --ingest-chunks C
// chunks each (8), and merges as the worker merges a searched generation, in its own process or with
// --ingest-merges apart in another; it writes into the index, so use it with --keep or --reuse),
// --match any|all (how the queries' words match: any, the default, or all, the "(AND)" classes' old meaning).
// Every caller and PostgreSQL get the same queries.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  closeSearchIndex,
  createGenerationTable,
  openGenerationTable,
  openSearchIndex,
  optimizeGenerationTable,
  replaceDocuments,
  searchDocuments,
} from "@svc/search-index";
import { describeMachine, percentile } from "../lib/harness.mjs";
import { chunkText, createRandom, createVocabulary } from "./corpus.mjs";
import { dropPostgresTopK, postgresTopK, preparePostgresTopK } from "./postgres-topk.mjs";

const { values: options } = parseArgs({
  // `pnpm run x -- --flag` hands the `--` on; without this, every flag after it would be a positional.
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  allowNegative: true,
  options: {
    chunks: { type: "string", default: "100000" },
    runs: { type: "string", default: "100" },
    seed: { type: "string", default: "19" },
    dir: { type: "string" },
    keep: { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
    optimize: { type: "boolean", default: false },
    "pg-topk": { type: "boolean", default: false },
    "pg-seconds": { type: "string", default: "30" },
    index: { type: "boolean", default: true },
    "ingest-rate": { type: "string", default: "0" },
    "ingest-chunks": { type: "string", default: "8" },
    "ingest-merges": { type: "string", default: "here" },
    match: { type: "string", default: "any" },
  },
});
const CHUNKS = Number(options.chunks);
const INGEST_RATE = Number(options["ingest-rate"]);
const RUNS = Number(options.runs);
const SEED = Number(options.seed);
const BATCH_CHUNKS = 2_000;
const PAIRS = 20;
const SOURCES = ["web", "file", "confluence", "slack"];

const vocabulary = createVocabulary(SEED);
// The corpus and the queries draw from their own generators, so the queries are the same whether the
// corpus was written in this run or regenerated for --reuse or for PostgreSQL.
let random = createRandom(SEED + 1);
const queryRandom = createRandom(SEED + 2);
const pick = (list, from = random) => list[Math.floor(from() * list.length)];
const between = (low, high, from = random) => low + Math.floor(from() * (high - low + 1));

/** Phrases that occur in the corpus: two neighbouring words of every 500th chunk. */
const phrases = [];

/** One document of 1–4 chunks with access fields spread as a real install has them. */
function makeDocument(number) {
  const documentId = `bench-doc-${number}`;
  const chunkCount = between(1, 4);
  const shared = {
    documentId,
    semanticIdentifier: `Bench document ${number}`,
    title: `Bench document ${number}`,
    source: pick(SOURCES),
    documentLink: `https://example.com/doc/${number}`,
    imageFileId: null,
    docUpdatedAt: new Date(Date.UTC(2024, 0, 1) + between(0, 700) * 86_400_000),
    ccPairIds: [between(0, PAIRS - 1)],
    tags: [{ key: "team", value: `team-${between(0, 9)}` }],
    isPublic: random() < 0.8 ? null : random() < 0.5,
    externalUserEmails: random() < 0.1 ? [`user${between(0, 49)}@example.com`] : [],
    externalUserGroupIds: random() < 0.1 ? [`group${between(0, 19)}`] : [],
  };
  return Array.from({ length: chunkCount }, (_, chunkIndex) => {
    const text = chunkText(random, vocabulary);
    return { ...shared, chunkIndex, text, link: `${shared.documentLink}#${chunkIndex}` };
  });
}

/** The corpus's documents from the start, as `load` writes them, with a generator of their own. */
function* corpusDocuments(chunkTarget) {
  const saved = random;
  random = createRandom(SEED + 1);
  try {
    let chunks = 0;
    for (let number = 0; chunks < chunkTarget; number += 1) {
      const document = makeDocument(number);
      chunks += document.length;
      yield document;
    }
  } finally {
    random = saved;
  }
}

/** The corpus's documents and phrases as `load` would make them, without writing anything. */
function corpusCounts(chunkTarget) {
  let documents = 0;
  let chunks = 0;
  for (const document of corpusDocuments(chunkTarget)) {
    for (const chunk of document) {
      if (chunks % 500 === 0) {
        const words = chunk.text.split(" ");
        phrases.push(`"${words[10]} ${words[11]}"`);
      }
      chunks += 1;
    }
    documents += 1;
  }
  return { documents, chunks };
}

async function load(generation, fromDocument, chunkTarget) {
  let documents = 0;
  let chunks = 0;
  let batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await replaceDocuments({ generation, documentIds: [...new Set(batch.map((c) => c.documentId))], chunks: batch });
    batch = [];
  };
  while (chunks < chunkTarget) {
    const document = makeDocument(fromDocument + documents);
    documents += 1;
    for (const chunk of document) {
      if (chunks % 500 === 0) {
        const words = chunk.text.split(" ");
        phrases.push(`"${words[10]} ${words[11]}"`);
      }
      chunks += 1;
    }
    batch.push(...document);
    if (batch.length >= BATCH_CHUNKS) await flush();
  }
  await flush();
  return { documents, chunks };
}

const rankWord = (low, high) => vocabulary.words[between(low, high, queryRandom)];
function distinctWords(count, low, high) {
  const words = new Set();
  while (words.size < count) words.add(rankWord(low, high));
  return [...words].join(" ");
}

const CLASSES = {
  "one common word": () => rankWord(0, 9),
  "one mid word": () => rankWord(900, 1100),
  "one rare word": () => rankWord(19_000, 21_000),
  "two common (AND)": () => distinctWords(2, 0, 19),
  "five common (AND)": () => distinctWords(5, 0, 19),
  "twenty common (AND)": () => distinctWords(20, 0, 49),
  "quoted phrase": () => pick(phrases, queryRandom),
  // Last, so the classes above draw the same queries as before it existed: a question of 2 common, 3
  // mid and 3 rare words (as bench/search-rest's), the case `match: any` is for (issue 37).
  "question (8 mixed words)": () => [distinctWords(2, 0, 19), distinctWords(3, 900, 1100), distinctWords(3, 19_000, 21_000)].join(" "),
};

const ADMIN = { all: true };
const RESTRICTED = { publicPairIds: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], visiblePairIds: [15], email: "user3@example.com", groups: ["group7"] };

const WARM_UP = 5;

/** Each class's queries, drawn once: warm-up first, then `runs` timed ones. */
function drawQueries(runs) {
  return Object.fromEntries(Object.entries(CLASSES).map(([name, make]) => [name, Array.from({ length: WARM_UP + runs }, make)]));
}

/** Times `search` (resolving with its result count) over `queries`; stops after `seconds` once 5 ran. */
async function timeQueries(search, queries, seconds = Infinity) {
  for (const query of queries.slice(0, WARM_UP)) await search(query);
  const times = [];
  let results = 0;
  const stopAt = performance.now() + seconds * 1000;
  for (const query of queries.slice(WARM_UP)) {
    const start = performance.now();
    results += await search(query);
    times.push(performance.now() - start);
    if (times.length >= 5 && performance.now() > stopAt) break;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), results: results / times.length, n: times.length };
}

const indexSearch = (generation, access) => async (query) =>
  (await searchDocuments({ generation, query, match: options.match, limit: 10, access })).length;

const ms = (value) => value.toFixed(1);
const seconds = (start) => ((performance.now() - start) / 1000).toFixed(1);
const mib = () => Math.round(process.memoryUsage().rss / 1_048_576);

/** How long the update stream runs before the first timed query: a merge or two has come and gone. */
const UPDATES_WARM_UP_MS = 15_000;

/**
 * The classes timed again while search/update-stream.mjs re-indexes INGEST_RATE of the corpus's
 * `documents` a second in a process of its own, then what it reports: its commits, its merges and
 * the rows every search scanned because they were not merged yet.
 */
async function reportUnderUpdates(indexReport, documents) {
  const stream = spawn(
    process.execPath,
    ["--import", "tsx", "search/update-stream.mjs", "--dir", dir, "--documents", String(documents), "--rate", String(INGEST_RATE), "--chunks", options["ingest-chunks"], "--merges", options["ingest-merges"]],
    { cwd: path.resolve(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  let report = "";
  stream.stdout.on("data", (data) => (report += data));
  try {
    await new Promise((resolve) => setTimeout(resolve, UPDATES_WARM_UP_MS));
    if (stream.exitCode !== null) throw new Error(`update-stream exited with ${stream.exitCode}`);
    const merges = options["ingest-merges"] === "apart" ? "merged by another process" : "merged by the writing process";
    await indexReport(`under ${INGEST_RATE} documents re-indexed a second, ${options["ingest-chunks"]} chunks each, ${merges} (${RUNS} runs a class)`, drawQueries(RUNS));
  } finally {
    if (stream.exitCode === null) {
      stream.kill("SIGTERM");
      await once(stream, "exit");
    }
  }
  const figures = JSON.parse(report);
  const sortedMerges = [...figures.merges].sort((a, b) => a - b);
  console.log(
    `\nupdate stream: ${figures.documents} documents; commit p50 ${ms(figures.commitP50)} / p95 ${ms(figures.commitP95)} ms; ` +
      `${sortedMerges.length} merges, median ${(percentile(sortedMerges, 50) / 1000).toFixed(1)} s; rows unmerged median ${figures.unmergedMedian}, max ${figures.unmergedMax}`,
  );
}

const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), "svc-bench-search-")));
const index = await openSearchIndex({ uri: dir });
let postgres = null;
try {
  console.log(`bench/search: ${CHUNKS} chunks, seed ${SEED}, ${RUNS} runs a class, LANCE_CPU_THREADS=${process.env.LANCE_CPU_THREADS}, match ${options.match}, index in ${dir}`);
  console.log(`machine: ${describeMachine()}; load average ${os.loadavg().map((load) => load.toFixed(2)).join(" ")}`);
  let generation;
  let loaded = { documents: 0, chunks: 0 };
  if (options.reuse) {
    generation = await openGenerationTable({ index, generationId: 1 });
    if (generation === null) throw new Error(`--reuse: no index in ${dir}`);
    // The phrases and documents of the corpus, regenerated from the seed without writing them.
    loaded = corpusCounts(CHUNKS);
    console.log(`reused: ${loaded.chunks} chunks; RSS ${mib()} MiB`);
    if (options.optimize) {
      const start = performance.now();
      await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
      console.log(`optimize (builds the indexes the table lacks): ${seconds(start)} s; RSS ${mib()} MiB`);
    }
  } else {
    generation = await createGenerationTable({ index, generationId: 1, textSearchConfig: "english" });
    let start = performance.now();
    loaded = await load(generation, 0, CHUNKS);
    console.log(`load: ${loaded.chunks} chunks of ${loaded.documents} documents in batches of ~${BATCH_CHUNKS} chunks: ${seconds(start)} s`);
    start = performance.now();
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    console.log(`optimize (FTS and scalar index merge, compaction, prune): ${seconds(start)} s; RSS ${mib()} MiB`);
  }
  if (options["pg-topk"]) {
    postgres = await preparePostgresTopK({ documents: corpusDocuments(CHUNKS), reuse: options.reuse, log: console.log });
  }

  const indexReport = async (label, queries) => {
    const figures = {};
    console.log(`\n${label}\n| class | all: p50 ms | all: p95 ms | all: results | access rule: p50 ms | access rule: p95 ms | access rule: results |`);
    console.log("|---|---|---|---|---|---|---|");
    for (const [name, list] of Object.entries(queries)) {
      const all = await timeQueries(indexSearch(generation, ADMIN), list);
      const restricted = await timeQueries(indexSearch(generation, RESTRICTED), list);
      figures[name] = { all, restricted };
      console.log(`| ${name} | ${ms(all.p50)} | ${ms(all.p95)} | ${all.results.toFixed(1)} | ${ms(restricted.p50)} | ${ms(restricted.p95)} | ${restricted.results.toFixed(1)} |`);
    }
    return figures;
  };
  const queries = drawQueries(RUNS);
  const indexFigures = options.index ? await indexReport(`merged index (${RUNS} runs a class)`, queries) : null;
  if (options.index) console.log(`\nRSS after the queries: ${mib()} MiB (peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB)`);

  if (INGEST_RATE > 0) await reportUnderUpdates(indexReport, loaded.documents);

  if (postgres !== null) {
    const limit = Number(options["pg-seconds"]);
    const ratio = (index, topK) => (index === undefined ? "" : `${(index.p95 / topK.p95).toFixed(2)}`);
    console.log(`\nPostgreSQL top-k (ts_rank_cd over GIN matches, LIMIT 10 chunks; a class stops after ${limit} s once 5 ran)`);
    console.log("| class | all: p50 ms | all: p95 ms | all: n | access rule: p50 ms | access rule: p95 ms | access rule: n | p95 index / top-k: all | p95 index / top-k: access rule |");
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const [name, list] of Object.entries(queries)) {
      const all = await timeQueries((query) => postgresTopK(postgres, query, ADMIN), list, limit);
      const restricted = await timeQueries((query) => postgresTopK(postgres, query, RESTRICTED), list, limit);
      const mine = indexFigures?.[name];
      console.log(`| ${name} | ${ms(all.p50)} | ${ms(all.p95)} | ${all.n} | ${ms(restricted.p50)} | ${ms(restricted.p95)} | ${restricted.n} | ${ratio(mine?.all, all)} | ${ratio(mine?.restricted, restricted)} |`);
    }
  }

  if (!options.reuse && options.index) {
    let start = performance.now();
    const fresh = await load(generation, loaded.documents, 1_000);
    console.log(`\nappend: ${fresh.chunks} more chunks, not merged: ${seconds(start)} s`);
    // Fewer runs: queries over unmerged rows are slow (README of @svc/search-index).
    const unmergedRuns = Math.min(RUNS, 30);
    await indexReport(`with the appended chunks not yet merged (${unmergedRuns} runs a class)`, drawQueries(unmergedRuns));
    start = performance.now();
    await optimizeGenerationTable({ generation, pruneOlderThan: new Date() });
    console.log(`\noptimize after the append: ${seconds(start)} s; RSS ${mib()} MiB`);
  }
} finally {
  closeSearchIndex(index);
  if (postgres !== null) {
    await postgres.end();
    if (!options.keep) await dropPostgresTopK();
  }
  if (!options.keep && options.dir === undefined) await rm(dir, { recursive: true, force: true });
}
