// bench/search/write-forms.mjs: what the worker's two index writes and its merge cost as a table
// fills with new documents (issue 19, the end-to-end gap). A fresh generation table in a temporary
// directory takes --batches batches of --documents new documents (1–8 chunks of the Zipf prose of
// bench/search) written as `replace` (replaceDocuments: a merge on chunk_id, then the stale-row check)
// or as `append` (appendDocuments: an add); every --merge-every batches the worker's maintenance runs
// (optimizeGenerationTable), timed. Process CPU counts LanceDB's threads.
//
//   cd bench && node --import tsx search/write-forms.mjs --form append --batches 300 --merge-every 0
//
// Options: --form replace|append (replace), --batches N (200), --documents K (50, the worker's batch),
// --merge-every M (10; 0: never), --trace (each merge's time as the table grows). LANCE_CPU_THREADS as
// the worker sets it (4).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  appendDocuments,
  closeSearchIndex,
  createGenerationTable,
  ensureLanceCpuThreads,
  openSearchIndex,
  optimizeGenerationTable,
  replaceDocuments,
} from "@svc/search-index";
import { benchChunks, createRandom, createVocabulary } from "./corpus.mjs";

const { values: options } = parseArgs({
  options: {
    form: { type: "string", default: "replace" },
    batches: { type: "string", default: "200" },
    documents: { type: "string", default: "50" },
    "merge-every": { type: "string", default: "10" },
    trace: { type: "boolean", default: false },
  },
});
const BATCHES = Number(options.batches);
const DOCUMENTS = Number(options.documents);
const MERGE_EVERY = Number(options["merge-every"]);
if (!["replace", "append"].includes(options.form)) throw new Error("--form is replace or append");

ensureLanceCpuThreads();
const vocabulary = createVocabulary(23);
const random = createRandom(24);
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** New document `number`: 1–8 chunks, public, in pair 1. */
function newDocument(number) {
  const fields = { isPublic: true, ccPairIds: [1] };
  return benchChunks({ random, vocabulary, documentId: `bench-new-${number}`, number, count: 1 + Math.floor(random() * 8), fields });
}

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-write-forms-"));
const index = await openSearchIndex({ uri: dir, cacheBytes: { index: 32 * 2 ** 20, metadata: 32 * 2 ** 20 } });
try {
  const generation = await createGenerationTable({ index, generationId: 1, textSearchConfig: "english" });
  const spent = { write: { wall: 0, cpu: 0 }, merge: { wall: 0, cpu: 0, runs: 0 } };
  const timed = async (into, work) => {
    const wall = performance.now();
    const cpu = cpuSeconds();
    await work();
    into.wall += performance.now() - wall;
    into.cpu += cpuSeconds() - cpu;
    return performance.now() - wall;
  };
  const started = performance.now();
  let next = 0;
  for (let batch = 1; batch <= BATCHES; batch += 1) {
    const documents = Array.from({ length: DOCUMENTS }, () => newDocument(next++));
    const chunks = documents.flat();
    const documentIds = documents.map((chunksOf) => chunksOf[0].documentId);
    await timed(spent.write, () =>
      options.form === "append" ? appendDocuments({ generation, chunks }) : replaceDocuments({ generation, documentIds, chunks }),
    );
    if (MERGE_EVERY > 0 && batch % MERGE_EVERY === 0) {
      spent.merge.runs += 1;
      const ms = await timed(spent.merge, () => optimizeGenerationTable({ generation, pruneOlderThan: new Date(Date.now() - 10 * 60_000) }));
      if (options.trace) console.log(`merge after ${next} documents (${await generation.table.countRows()} rows): ${ms.toFixed(0)} ms`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const perMerge = (value) => (spent.merge.runs === 0 ? "-" : (value / spent.merge.runs).toFixed(0));
  console.log(
    `${options.form}, ${BATCHES} batches of ${DOCUMENTS} new documents, merge every ${MERGE_EVERY || "never"}: ` +
      `${((BATCHES * DOCUMENTS) / seconds).toFixed(0)} documents/s; write per batch ${(spent.write.wall / BATCHES).toFixed(0)} ms ` +
      `(CPU ${((spent.write.cpu * 1000) / BATCHES).toFixed(0)} ms); merge per run ${perMerge(spent.merge.wall)} ms ` +
      `(CPU ${perMerge(spent.merge.cpu * 1000)} ms); process CPU ${cpuSeconds().toFixed(1)} s; rows ${await generation.table.countRows()}`,
  );
} finally {
  closeSearchIndex(index);
  rmSync(dir, { recursive: true, force: true });
}
