// bench/search/update-stream.mjs: a steady stream of re-indexed documents into an index bench/search
// built, with the worker's merges of a searched generation, in a process of its own (as svc's worker
// is): bench/search --ingest-rate R starts it, times its query classes meanwhile, then stops it.
// Every second it replaces R existing documents (`replaceDocuments`, new text, `--chunks C` chunks
// each) and, as the worker does for a generation being searched, merges the rows waiting into the FTS
// index (`mergeGenerationTable`) at most every 2 s: in this process, as svc's worker does, or with
// `--merges apart` in a child process of its own (`--merge-only`). On SIGTERM it prints one JSON line:
// commits, merges and the rows left unmerged, sampled every second.
//
//   node --import tsx search/update-stream.mjs --dir D --documents N --rate R --chunks C [--merges apart]   (from bench/)
import { spawn } from "node:child_process";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { closeSearchIndex, mergeGenerationTable, openGenerationTable, openSearchIndex, replaceDocuments } from "@svc/search-index";
import { percentile } from "../lib/harness.mjs";
import { benchChunks, createRandom, createVocabulary } from "./corpus.mjs";

const { values: options } = parseArgs({
  options: {
    dir: { type: "string" },
    documents: { type: "string" },
    rate: { type: "string", default: "5" },
    chunks: { type: "string", default: "8" },
    seed: { type: "string", default: "41" },
    merges: { type: "string", default: "here" },
    "merge-only": { type: "boolean", default: false },
  },
});
if (!options.dir || (!options.documents && !options["merge-only"])) throw new Error("--dir and --documents are required");
if (!["here", "apart"].includes(options.merges)) throw new Error("--merges is here or apart");
const DOCUMENTS = Number(options.documents);
const RATE = Number(options.rate);
const CHUNKS = Number(options.chunks);
/** The worker's SVC_INDEX_OPTIMIZE_SECONDS default: how often it looks for rows to merge. */
const MERGE_SECONDS = 2;

const vocabulary = createVocabulary(Number(options.seed));
const random = createRandom(Number(options.seed) + 1);
const index = await openSearchIndex({ uri: options.dir });
const generation = await openGenerationTable({ index, generationId: 1 });
if (generation === null) throw new Error(`no generation 1 in ${options.dir}`);

let stopping = false;
const stopped = new Promise((resolve) => process.once("SIGTERM", resolve)).then(() => (stopping = true));
const pause = (ms) => Promise.race([new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))), stopped]);
const commits = [];
/** Rows written since the table's last merge: every search scans them. */
const unmergedRows = async () => (await generation.table.indexStats("text_idx"))?.numUnindexedRows ?? 0;
const merges = [];
const unmerged = [];

async function writeUpdates() {
  let due = performance.now();
  while (!stopping) {
    const numbers = new Set();
    while (numbers.size < RATE) numbers.add(Math.floor(random() * DOCUMENTS));
    const documentIds = [...numbers].map((number) => `bench-doc-${number}`);
    const chunks = [...numbers].flatMap((number) => benchChunks({ random, vocabulary, documentId: `bench-doc-${number}`, number, count: CHUNKS }));
    const started = performance.now();
    await replaceDocuments({ generation, documentIds, chunks });
    commits.push(performance.now() - started);
    due += 1000;
    await pause(due - performance.now());
  }
}

async function mergeWaitingRows() {
  while (!stopping) {
    await pause(MERGE_SECONDS * 1000);
    if (stopping || (await unmergedRows()) === 0) continue;
    const started = performance.now();
    await mergeGenerationTable({ generation });
    merges.push(performance.now() - started);
  }
}

async function sampleUnmerged() {
  while (!stopping) {
    unmerged.push(await unmergedRows());
    await pause(1000);
  }
}

/** The merges of a `--merge-only` child: started now, their durations read from its report at the end. */
function mergeApart() {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, "--dir", options.dir, "--merge-only"], { stdio: ["ignore", "pipe", "inherit"] });
  let report = "";
  child.stdout.on("data", (data) => (report += data));
  return stopped.then(async () => {
    child.kill("SIGTERM");
    await once(child, "exit");
    merges.push(...JSON.parse(report).merges);
  });
}

if (options["merge-only"]) {
  await mergeWaitingRows();
  console.log(JSON.stringify({ merges }));
  closeSearchIndex(index);
  process.exit(0);
}
await Promise.all([writeUpdates(), options.merges === "apart" ? mergeApart() : mergeWaitingRows(), sampleUnmerged()]);
const sorted = (values) => [...values].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    documents: commits.length * RATE,
    commitP50: percentile(sorted(commits), 50),
    commitP95: percentile(sorted(commits), 95),
    merges: merges.map((ms) => Math.round(ms)),
    unmergedMedian: percentile(sorted(unmerged), 50),
    unmergedMax: Math.max(0, ...unmerged),
  }),
);
closeSearchIndex(index);
