// bench/search-rest/probe-forms.mjs: LanceDB query forms of one query class on a kept index (package
// level, no HTTP or PostgreSQL), each form timed on the same queries in turn: wall ms and the process's
// CPU ms (LanceDB's threads included) per query. Forms: or / and (one MatchQuery of the words),
// shouldEach (a Should clause a word), mustK (the K rarest words OR-ed as Must, the rest as Should:
// Lucene's common-terms split), searchAny / searchAll (the package's whole searchDocuments, limit 10,
// after the table's common words are sampled). LIMIT (120) is the forms' top-k.
//   node --import tsx search-rest/probe-forms.mjs /tmp/bs/100k "twenty common (AND)" [runs=30] [or,and,searchAny,searchAll]   (from bench/)
import { createRequire } from "node:module";
import * as searchIndex from "@svc/search-index";
const { openGenerationTable, openSearchIndex, searchDocuments } = searchIndex;
import { createRandom, createVocabulary } from "../search/corpus.mjs";
import { queryClasses } from "./queries.mjs";

const { MatchQuery, Operator, BooleanQuery, Occur } = createRequire(new URL("../../packages/search-index/package.json", import.meta.url))("@lancedb/lancedb");
const [dir, className, runsArg = "30", forms = "or,and"] = process.argv.slice(2);
const runs = Number(runsArg);
const index = await openSearchIndex({ uri: dir });
const generation = await openGenerationTable({ index, generationId: 1 });
const vocabulary = createVocabulary(19);
if (searchIndex.sampleCommonWords) {
  const t = performance.now();
  const sample = await searchIndex.sampleCommonWords(generation);
  console.log(`common-word sample: ${sample?.shares?.size} words in ${(performance.now() - t).toFixed(0)} ms`);
}
const rankOf = new Map(vocabulary.words.map((w, i) => [w, i]));
const next = queryClasses(createRandom(7), [], vocabulary)[className];
const queries = Array.from({ length: runs + 3 }, next);
const byRarity = (q) => q.split(" ").sort((a, b) => rankOf.get(b) - rankOf.get(a));
const build = {
  or: (q) => new MatchQuery(q, "text", { operator: Operator.Or }),
  and: (q) => new MatchQuery(q, "text", { operator: Operator.And }),
  shouldEach: (q) => new BooleanQuery(q.split(" ").map((w) => [Occur.Should, new MatchQuery(w, "text")])),
};
for (const k of [1, 2, 3, 6, 10]) {
  build[`must${k}`] = (q) => {
    const words = byRarity(q);
    return new BooleanQuery([[Occur.Must, new MatchQuery(words.slice(0, k).join(" "), "text", { operator: Operator.Or })], [Occur.Should, new MatchQuery(words.slice(k).join(" "), "text", { operator: Operator.Or })]]);
  };
}
build.searchAny = (q) => ({ search: "any", q });
build.searchAll = (q) => ({ search: "all", q });
const limit = Number(process.env.LIMIT ?? 120);
const pct = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
const times = {};
const counts = {};
const cpus = {};
for (const [at, query] of queries.entries()) {
  for (const form of forms.split(",")) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const built = build[form](query);
    const rows = built.search
      ? await searchDocuments({ generation, query, match: built.search, limit: 10, access: { all: true } })
      : await generation.table.query().fullTextSearch(built).select(["chunk_id", "_score"]).limit(limit).toArray();
    const t = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (at >= 3) {
      (times[form] ??= []).push(t);
      (cpus[form] ??= []).push((used.user + used.system) / 1000);
      (counts[form] ??= []).push(rows.length);
    }
  }
}
for (const form of Object.keys(times)) {
  console.log(`${className} ${form.padEnd(10)} limit ${limit} p50 ${pct(times[form], 50).toFixed(1)} ms p95 ${pct(times[form], 95).toFixed(1)} ms rows ${pct(counts[form], 50)} cpu p50 ${pct(cpus[form], 50).toFixed(1)} ms`);
}
