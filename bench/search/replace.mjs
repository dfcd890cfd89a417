// bench/search/replace.mjs: what one indexing commit costs as the search index grows. Opens an index
// built by `bench/search --keep` (bench/search/run.mjs; its --dir, generation 1) and re-indexes
// batches of existing documents the way the worker does (`replaceDocuments`: new text, 1–4 chunks, so
// some documents shrink and some grow), timing each batch's commit. Writes into the index: run it on a
// copy.
//
//   pnpm --filter @svc/bench run search -- --chunks 1000000 --dir /tmp/bs/1m --keep
//   cp -r /tmp/bs/1m /tmp/bs/1m-copy
//   node --import tsx bench/search/replace.mjs --dir /tmp/bs/1m-copy --documents 399749
//
// Options: --dir D (required), --documents N (how many documents the index holds: the corpus's count
// printed by bench/search; re-indexed ids are drawn from them), --batches B (20), --batch-documents K
// (50, the worker's batch), --seed S (23), --cache-mb M (LanceDB's index and metadata caches capped at
// M MiB each, as the worker caps them with SVC_WORKER_INDEX_CACHE_MB / _METADATA_CACHE_MB; LanceDB's own
// defaults when omitted), --fresh (batches of new documents, numbered from --documents on, as a
// backlog of new ones writes them, instead of new versions of existing ones), --optimize-every K (after
// every K batches, the worker's background maintenance, timed in wall and process CPU time, LanceDB's
// threads included), --maintenance optimize|merge (which: optimizeGenerationTable, LanceDB's optimize
// with compaction and pruning, the default; or mergeGenerationTable, the merge the worker runs for a
// searched generation).
import { parseArgs } from "node:util";
import {
  closeSearchIndex,
  mergeGenerationTable,
  openGenerationTable,
  openSearchIndex,
  optimizeGenerationTable,
  replaceDocuments,
} from "@svc/search-index";
import { percentile } from "../lib/harness.mjs";
import { benchChunks, createRandom, createVocabulary } from "./corpus.mjs";

const { values: options } = parseArgs({
  options: {
    dir: { type: "string" },
    documents: { type: "string" },
    batches: { type: "string", default: "20" },
    "batch-documents": { type: "string", default: "50" },
    seed: { type: "string", default: "23" },
    "cache-mb": { type: "string" },
    fresh: { type: "boolean", default: false },
    "optimize-every": { type: "string", default: "0" },
    maintenance: { type: "string", default: "optimize" },
  },
});
if (!options.dir || !options.documents) throw new Error("--dir and --documents are required");
const DOCUMENTS = Number(options.documents);
const BATCHES = Number(options.batches);
const BATCH_DOCUMENTS = Number(options["batch-documents"]);
const MAINTENANCE_EVERY = Number(options["optimize-every"]);
const MAINTENANCE = {
  optimize: (generation) => optimizeGenerationTable({ generation, pruneOlderThan: new Date(Date.now() - 10 * 60_000) }),
  merge: (generation) => mergeGenerationTable({ generation }),
}[options.maintenance];
if (!MAINTENANCE) throw new Error(`--maintenance is optimize or merge, not ${options.maintenance}`);

const vocabulary = createVocabulary(Number(options.seed));
const random = createRandom(Number(options.seed) + 1);
const between = (low, high) => low + Math.floor(random() * (high - low + 1));

/** A new version of existing document `number`: 1–4 chunks of fresh text, public, in pair 0. */
function newVersion(number) {
  return benchChunks({ random, vocabulary, documentId: `bench-doc-${number}`, number, count: between(1, 4) });
}

const cacheBytes = options["cache-mb"] === undefined ? undefined : Number(options["cache-mb"]) * 2 ** 20;
const index = await openSearchIndex({ uri: options.dir, ...(cacheBytes === undefined ? {} : { cacheBytes: { index: cacheBytes, metadata: cacheBytes } }) });
try {
  const generation = await openGenerationTable({ index, generationId: 1 });
  if (generation === null) throw new Error(`no generation 1 in ${options.dir}`);
  console.log(`bench/search/replace: ${await generation.table.countRows()} rows in ${options.dir}; ${BATCHES} batches of ${BATCH_DOCUMENTS} documents`);
  const times = [];
  const maintenanceTimes = [];
  const maintenanceCpu = [];
  const cpuSeconds = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const cpuStarted = cpuSeconds();
  const wallStarted = performance.now();
  let nextFresh = DOCUMENTS;
  for (let batch = 0; batch < BATCHES; batch += 1) {
    const numbers = new Set();
    if (options.fresh) while (numbers.size < BATCH_DOCUMENTS) numbers.add(nextFresh++);
    else while (numbers.size < BATCH_DOCUMENTS) numbers.add(between(0, DOCUMENTS - 1));
    const documentIds = [...numbers].map((number) => `bench-doc-${number}`);
    const chunks = [...numbers].flatMap(newVersion);
    const started = performance.now();
    await replaceDocuments({ generation, documentIds, chunks });
    times.push(performance.now() - started);
    if (MAINTENANCE_EVERY > 0 && (batch + 1) % MAINTENANCE_EVERY === 0) {
      const maintenanceStarted = performance.now();
      const cpuBefore = cpuSeconds();
      await MAINTENANCE(generation);
      maintenanceCpu.push(cpuSeconds() - cpuBefore);
      maintenanceTimes.push(performance.now() - maintenanceStarted);
    }
  }
  const wallSeconds = (performance.now() - wallStarted) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  console.log(`commit ms per batch: p50 ${p50.toFixed(0)}, p95 ${percentile(sorted, 95).toFixed(0)}, first ${times[0].toFixed(0)}`);
  console.log(`documents/s at the median batch: ${((BATCH_DOCUMENTS * 1000) / p50).toFixed(0)}`);
  if (maintenanceTimes.length > 0) {
    const sortedMaintenance = [...maintenanceTimes].sort((a, b) => a - b);
    console.log(
      `${options.maintenance} every ${MAINTENANCE_EVERY} batches (${maintenanceTimes.length} runs): wall ms p50 ${percentile(sortedMaintenance, 50).toFixed(0)}, ` +
        `max ${sortedMaintenance.at(-1).toFixed(0)}; CPU s each ${maintenanceCpu.map((seconds) => seconds.toFixed(2)).join(", ")}`,
    );
  }
  console.log(`in all: ${wallSeconds.toFixed(1)} s wall, ${(cpuSeconds() - cpuStarted).toFixed(1)} s CPU, ${((BATCHES * BATCH_DOCUMENTS) / wallSeconds).toFixed(0)} documents/s`);
  console.log(`rows after: ${await generation.table.countRows()}`);
} finally {
  await closeSearchIndex(index);
}
