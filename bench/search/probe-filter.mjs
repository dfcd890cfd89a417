// bench/search/probe-filter.mjs: where a prefiltered full-text query's time goes, on an index that
// bench/search/run.mjs kept (--keep --dir D). Times one common word's top 120 (ids and scores, as
// search's ranking round reads) under each part of bench/search's restricted access rule, with the
// cost of the where-clause's row mask alone (countRows), and the unfiltered query reading the access
// columns instead (what a post-filter would read).
//   node --import tsx search/probe-filter.mjs /tmp/bs-pkg/1m [runs=30]   (from bench/)
import { openSearchIndex, openGenerationTable, buildSearchFilter } from "@svc/search-index";
import { createRequire } from "node:module";
const { MatchQuery, Operator } = createRequire(new URL("../../packages/search-index/package.json", import.meta.url))("@lancedb/lancedb");
import { createVocabulary } from "./corpus.mjs";
const dir = process.argv[2];
const runs = Number(process.argv[3] ?? 30);
const index = await openSearchIndex({ uri: dir });
const generation = await openGenerationTable({ index, generationId: 1 });
const table = generation.table;
const vocabulary = createVocabulary(19);
const RESTRICTED = { publicPairIds: [0,1,2,3,4,5,6,7,8,9], visiblePairIds: [15], email: "user3@example.com", groups: ["group7"] };
const access = buildSearchFilter(RESTRICTED, null);
const variants = {
  none: null,
  access,
  "is_public = 1": "is_public = 1",
  "is_public IS NULL": "is_public IS NULL",
  "one pair": "array_has_any(cc_pair_ids, [arrow_cast(15, 'Int32')])",
  "ten pairs": access.match(/\(is_public IS NULL AND (.*?)\) OR/)[1],
};
console.log("where:", access);
const words = vocabulary.words.slice(0, 10);
const ACCESS_COLUMNS = ["is_public", "cc_pair_ids", "external_user_emails", "external_user_group_ids"];
for (const [name, where, extra, lim] of [...Object.entries(variants), ["none + access columns", null, ACCESS_COLUMNS], ["none, limit 480", null, [], 480]]) {
  const times = [];
  for (let i = 0; i < runs + 3; i++) {
    const word = words[i % words.length];
    let q = table.query().fullTextSearch(new MatchQuery(word, "text", { operator: Operator.And })).select(["chunk_id", "_score", ...(extra ?? [])]).limit(lim ?? 120);
    if (where) q = q.where(where);
    const t = performance.now();
    await q.toArray();
    if (i >= 3) times.push(performance.now() - t);
  }
  const mask = [];
  if (where) for (let i = 0; i < 10; i++) { const t = performance.now(); await table.countRows(where); mask.push(performance.now() - t); }
  times.sort((a, b) => a - b); mask.sort((a, b) => a - b);
  console.log(`${name.padEnd(20)} fts p50 ${times[Math.floor(runs/2)].toFixed(1)} p95 ${times[Math.floor(runs*0.95)].toFixed(1)}  countRows(where) p50 ${mask.length ? mask[5].toFixed(1) : "-"}`);
}
