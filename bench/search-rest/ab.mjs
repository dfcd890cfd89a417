// bench/search-rest/ab.mjs: the same searches through REST against several builds of the web server,
// alternated query by query on one corpus that run.mjs kept (--keep), so that a busy machine's load
// falls on every build alike. Each build is a bundled server (apps/web/dist/server.js, or a copy of an
// earlier build one directory below apps/web, e.g. apps/web/dist-base/server.js: the server finds
// Next's build at `..`). Also checks that every build answers every query the same (ids, chunks,
// snippets; pages whose documents differ are counted apart from those that differ only in the chunks
// shown), and reports each build's web process CPU time per search (user + system, all its threads:
// LanceDB's included), which a busy machine's load does not inflate the way it does latency.
//
//   node bench/search-rest/ab.mjs --chunks 100000 --servers base=apps/web/dist-base/server.js,new=apps/web/dist/server.js
//
// Options: --chunks (the kept corpus's size: 100000 → svc_bench_search_rest_100k; --name as run.mjs's), --servers
// name=path,... (paths from the repository root; one build may run under two names), --match
// name=all,...: the request's `match` for those servers (issue 37; a build before it refuses the
// field, so it is sent only to the servers named), --queries per class (30, after 3 warm-ups),
// --classes (all; a comma list of names as printed), --seed (19, the corpus's).
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { databaseUrl, describeMachine, findFreePort, percentile, processCpuSeconds, ProcessGroup, root, runSvc, waitForHttp } from "../lib/harness.mjs";
import { createRandom, createVocabulary } from "../search/corpus.mjs";
import { corpusPlace, queryClasses, samplePhrases } from "./queries.mjs";

const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--")),
  options: {
    chunks: { type: "string", default: "100000" },
    servers: { type: "string" },
    match: { type: "string", default: "" },
    queries: { type: "string", default: "30" },
    classes: { type: "string" },
    seed: { type: "string", default: "19" },
    name: { type: "string", default: "" },
  },
});
const QUERIES = Number(options.queries);
const WARMUP = 3;
const SEED = Number(options.seed);
const target = Number(options.chunks);
const { label, database, indexDir } = corpusPlace(target, options.name);
const url = databaseUrl(database);
const log = (message) => process.stderr.write(`${message}\n`);

const db = new pg.Client({ connectionString: url });
await db.connect();
const pairIds = JSON.parse((await db.query("SELECT value FROM bench_meta WHERE key = 'pairs'")).rows[0].value);
const phrases = await samplePhrases(db);
await db.end();
const cli = (args) => runSvc(url, args);
const keys = {
  admin: cli(["keys", "create", "--name", "bench-ab-admin", "--role", "admin"]),
  // As run.mjs: a curator scoped to one private pair (public pairs' documents plus that pair's).
  curator: cli(["keys", "create", "--name", "bench-ab-curator", "--role", "curator", "--scope", String(pairIds.at(-1))]),
};

Object.assign(process.env, { SVC_INDEX_DIR: indexDir, SVC_SEARCH_TIMEOUT_MS: "600000", SVC_STATEMENT_TIMEOUT_MS: "600000" });
const matchOf = new Map(options.match.split(",").filter(Boolean).map((spec) => spec.split("=")));
const processes = new ProcessGroup();
const servers = [];
for (const spec of options.servers.split(",")) {
  const [name, file] = spec.split("=");
  const port = await findFreePort();
  const child = processes.start(name, [path.resolve(root, file)], {
    cwd: path.join(root, "apps/web"),
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1" },
  });
  servers.push({ name, base: `http://127.0.0.1:${port}`, match: matchOf.get(name), child });
}

async function search({ base, match }, key, query) {
  const response = await fetch(`${base}/api/svc-api/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(match === undefined ? { query, limit: 10 } : { query, match, limit: 10 }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(query)} answered ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text).results;
}

try {
  for (const { base } of servers) await waitForHttp(`${base}/api/health`);
  // Each build's first searches (JIT, caches) would weigh on the first class's CPU figures.
  const warmUp = Object.values(queryClasses(createRandom(SEED + 99), phrases, createVocabulary(SEED)));
  for (const server of servers) for (const key of Object.values(keys)) for (const makeQuery of warmUp) await search(server, key, makeQuery());
  const random = createRandom(SEED + 100);
  const classes = Object.entries(queryClasses(random, phrases, createVocabulary(SEED)));
  const wanted = options.classes?.split(",");
  console.log(`bench/search-rest/ab at ${label}, ${new Date().toISOString()}, ${describeMachine()}; ${QUERIES} queries a class, builds alternated; load ${os.loadavg()[0].toFixed(1)}`);
  console.log(
    `\n| class | ${servers.flatMap(({ name }) => [`${name} admin p50 / p95 ms`, `${name} curator p50 / p95 ms`, `${name} web CPU ms a search`]).join(" | ")} | documents a page (admin): ${servers.map(({ name }) => name).join(" / ")} | pages differ: documents | only chunks | load |`,
  );
  console.log(`|---|${servers.map(() => "---|---|---|").join("")}---|---|---|---|`);
  for (const [name, makeQuery] of classes) {
    const queries = Array.from({ length: QUERIES + WARMUP }, makeQuery);
    if (wanted && !wanted.includes(name)) continue;
    const times = new Map();
    // Documents each build's admin pages held, summed over the timed queries.
    const found = new Map();
    const cpuBefore = servers.map(({ child }) => processCpuSeconds(child.pid));
    // Pages whose documents (ids, order) differ between builds, and pages that differ only in the chunks shown.
    let differ = 0;
    let chunksDiffer = 0;
    for (const [i, query] of queries.entries()) {
      // Each query goes to every build in turn, in an order that alternates.
      const order = i % 2 === 0 ? servers : [...servers].reverse();
      for (const [keyName, key] of Object.entries(keys)) {
        const answers = new Set();
        const documents = new Set();
        const pages = [];
        for (const server of order) {
          const started = performance.now();
          const results = await search(server, key, query);
          const elapsed = performance.now() - started;
          answers.add(JSON.stringify(results.map((r) => [r.document_id, r.chunks.map((c) => [c.chunk_index, c.snippet])])));
          documents.add(JSON.stringify(results.map((r) => r.document_id)));
          pages.push(`${server.name}: ${results.map((r) => `${r.document_id} ${r.score.toFixed(4)}`).join(", ")}`);
          if (i < WARMUP) continue;
          const series = `${server.name} ${keyName}`;
          times.set(series, [...(times.get(series) ?? []), elapsed]);
          if (keyName === "admin") found.set(server.name, (found.get(server.name) ?? 0) + results.length);
        }
        if (documents.size > 1) {
          differ += 1;
          log(`documents differ for ${keyName} ${JSON.stringify(query)}:\n  ${pages.join("\n  ")}`);
        }
        else if (answers.size > 1) chunksDiffer += 1;
      }
    }
    const cell = (series) => {
      const sorted = [...times.get(series)].sort((a, b) => a - b);
      return `${percentile(sorted, 50).toFixed(1)} / ${percentile(sorted, 95).toFixed(1)}`;
    };
    const searches = queries.length * Object.keys(keys).length;
    const cpuMs = servers.map(({ child }, index) => (((processCpuSeconds(child.pid) - cpuBefore[index]) * 1000) / searches).toFixed(1));
    const cells = servers.flatMap((server, index) => [cell(`${server.name} admin`), cell(`${server.name} curator`), cpuMs[index]]);
    const documentsAPage = servers.map((server) => ((found.get(server.name) ?? 0) / QUERIES).toFixed(1)).join(" / ");
    console.log(`| ${name} | ${cells.join(" | ")} | ${documentsAPage} | ${differ} | ${chunksDiffer} | ${os.loadavg()[0].toFixed(1)} |`);
  }
} finally {
  for (const { child } of servers) await processes.stop(child);
  log("done");
}
