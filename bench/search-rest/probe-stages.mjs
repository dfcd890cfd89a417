// bench/search-rest/probe-stages.mjs: where a search's time goes on a corpus bench/search-rest kept
// (--keep), without HTTP or PostgreSQL: the ranking query alone (a page's first round: the top
// 4 × 3 × limit chunks, ids and scores), the ranked rows' shown columns read by chunk id, and the
// package's whole searchDocuments (ranking, reads, snippets, near matches) with no access rule. `match`
// (any, the default, or all: issue 37) is how the bare words match, in the ranking query and the search.
//   node --import tsx search-rest/probe-stages.mjs /tmp/svc-bench-search-rest-1m ["two common (AND)"] [runs=30] [any|all]   (from bench/)
import { createRequire } from "node:module";
import { openGenerationTable, openSearchIndex, searchDocuments } from "@svc/search-index";
import { createRandom, createVocabulary } from "../search/corpus.mjs";
import { queryClasses } from "./queries.mjs";

const { MatchQuery, Operator } = createRequire(new URL("../../packages/search-index/package.json", import.meta.url))("@lancedb/lancedb");
const [dir, className = "two common (AND)", runsArg = "30", match = "any"] = process.argv.slice(2);
const runs = Number(runsArg);
const index = await openSearchIndex({ uri: dir });
const generation = await openGenerationTable({ index, generationId: 1 });
const next = queryClasses(createRandom(7), [], createVocabulary(19))[className];
const queries = Array.from({ length: runs + 3 }, next);

const stages = { rank: [], read: [], search: [] };
for (const [at, query] of queries.entries()) {
  let started = performance.now();
  const ranked = await generation.table
    .query()
    .fullTextSearch(new MatchQuery(query, "text", { operator: match === "all" ? Operator.And : Operator.Or }))
    .select(["chunk_id", "_score"])
    .limit(120)
    .toArray();
  const rank = performance.now() - started;
  started = performance.now();
  const ids = ranked.slice(0, 30).map((row) => `'${row.chunk_id}'`);
  if (ids.length > 0) await generation.table.query().where(`chunk_id IN (${ids.join(", ")})`).select(["chunk_id", "text", "title", "link"]).limit(30).toArray();
  const read = performance.now() - started;
  started = performance.now();
  await searchDocuments({ generation, query, match, limit: 10, access: { all: true } });
  const search = performance.now() - started;
  if (at >= 3) {
    stages.rank.push(rank);
    stages.read.push(read);
    stages.search.push(search);
  }
}
const pct = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
for (const [stage, values] of Object.entries(stages)) {
  console.log(`${className} (${match}) ${stage.padEnd(7)} p50 ${pct(values, 50).toFixed(1)} ms  p95 ${pct(values, 95).toFixed(1)} ms`);
}
