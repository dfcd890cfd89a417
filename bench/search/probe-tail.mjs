// bench/search/probe-tail.mjs: what a search pays for the rows a generation's table has not merged
// yet, with no writer and no merge running (issue 19 §3, session 14). On a table as a bench left it
// (e.g. bench/search-rest --ingest-rate … --keep: a tail of re-ingested rows), times one word's top 10
// (ids and scores, as search's ranking round reads them) for a common, a mid and a rare word, then
// merges the table (the worker's optimize) and times the same queries again. With `append=N`, first
// appends N copies of the table's rows under new chunk ids (an unmerged tail of N rows, in 10 commits),
// and removes them again at the end, so the table is left as it was.
//   node --import tsx search/probe-tail.mjs /tmp/svc-bench-search-rest-100k [generation=1] [runs=20] [append=N]   (from bench/)
import { openGenerationTable, openSearchIndex, optimizeGenerationTable } from "@svc/search-index";
import { createRequire } from "node:module";
import { median, percentile } from "../lib/harness.mjs";
import { createVocabulary } from "./corpus.mjs";

const { MatchQuery } = createRequire(new URL("../../packages/search-index/package.json", import.meta.url))("@lancedb/lancedb");
const [dir, generationArg = "1", runsArg = "20", appendArg = "append=0"] = process.argv.slice(2);
const append = Number(appendArg.replace("append=", ""));
const PROBE_PREFIX = "probe-tail:";
const runs = Number(runsArg);
const index = await openSearchIndex({ uri: dir });
const generation = await openGenerationTable({ index, generationId: Number(generationArg) });
if (generation === null) throw new Error(`no table of generation ${generationArg} in ${dir}`);
const { table } = generation;
const vocabulary = createVocabulary(19);
const words = { common: vocabulary.words[0], mid: vocabulary.words[200], rare: vocabulary.words[5000] };

async function describe() {
  const stats = await table.stats();
  const fts = await table.indexStats("text_idx");
  return `${stats.numRows} rows, ${fts?.numUnindexedRows ?? "?"} unmerged, ${stats.fragmentStats.numFragments} fragments (${stats.fragmentStats.numSmallFragments} small)`;
}

async function timeWords() {
  const out = [];
  for (const [name, word] of Object.entries(words)) {
    const times = [];
    for (let i = 0; i < runs + 2; i += 1) {
      const started = performance.now();
      await table.query().fullTextSearch(new MatchQuery(word, "text")).select(["chunk_id"]).limit(10).toArray();
      if (i >= 2) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    out.push(`${name} p50 ${median(times).toFixed(1)} p95 ${percentile(times, 95).toFixed(1)} ms`);
  }
  return out.join("; ");
}

if (append > 0) {
  const rows = await table.query().limit(append).toArrow();
  const ids = rows.getChild("chunk_id").toArray().map((id) => `${PROBE_PREFIX}${id}`);
  const { arrow } = await import("../../packages/search-index/src/arrow.ts");
  const columns = Object.fromEntries(rows.schema.fields.map((field) => [field.name, field.name === "chunk_id" ? arrow.vectorFromArray(ids, field.type) : rows.getChild(field.name)]));
  const copy = new arrow.Table(columns);
  for (let slice = 0; slice < 10; slice += 1) await table.add(copy.slice((slice * append) / 10, ((slice + 1) * append) / 10));
}
console.log(`before: ${await describe()}\n  ${await timeWords()}`);
const started = performance.now();
await optimizeGenerationTable({ generation, pruneOlderThan: new Date(Date.now() - 600_000) });
console.log(`merge: ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`after: ${await describe()}\n  ${await timeWords()}`);
if (append > 0) {
  await table.delete(`starts_with(chunk_id, '${PROBE_PREFIX}')`);
  await optimizeGenerationTable({ generation, pruneOlderThan: new Date(Date.now() - 600_000) });
  console.log(`restored: ${await describe()}`);
}
