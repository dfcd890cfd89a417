// bench/e2e: documents made searchable per second, end to end (issue 17, point 1). The targets, each
// on a database of its own, measured alternately in the same run:
//   svc     `svc start` (supervisor, web, worker) on DATABASE_URL's server; indexed = the document's
//           indexing_status is 'indexed' (its chunks are in PostgreSQL and in the search index);
//   lance-anchor bench/e2e/lance-anchor-server.mjs (node:http + pg + LanceDB): the anchor that does svc's
//           work (issue 44): svc's chunker, the chunks appended (group commit) to a LanceDB table with
//           svc's FTS index, then the document row committed; indexed = committed;
//   anchor  bench/e2e/anchor-server.mjs (node:http + pg): one transaction writes the document and its
//           chunks with to_tsvector under a GIN index; indexed = committed (the PostgreSQL-only anchor);
//   svc-web `svc start web`: the web server alone, no worker (nothing is indexed): ingestion latency
//           without indexing beside it, against svc's with it (issue 17, point 4);
//   svc-base svc as another checkout built it (BENCH_BASE_ROOT: a `git worktree` of an earlier commit,
//           installed and built), measured like svc: an A/B of two versions in one run.
// For each offered rate, an open-loop generator sends BENCH_SECONDS of ingestions at that rate (each
// sent when due, whatever the earlier ones did), the same seeded small documents to both. A poller
// asks the database, one query after another, which accepted ids are indexed: accept→indexed counts
// from the 200 of the ingestion to the poll that saw it (the anchor's figure is the method's floor),
// due→indexed from the moment the request was due. Indexed/s is counted between BENCH_WARMUP_SECONDS
// and the end of the offered load. RSS of web and worker (svc) or of the anchor server, every 500 ms; CPU
// seconds per 1,000 accepted documents of each part and of the local PostgreSQL server (all its processes).
//   pnpm build && node bench/e2e/run.mjs
//   env: DATABASE_URL, BENCH_RATES (100,200,400,800), BENCH_RUNS (3), BENCH_SECONDS (60),
//        BENCH_WARMUP_SECONDS (10), BENCH_DRAIN_SECONDS (30), BENCH_TARGETS (lance-anchor,anchor,svc; add svc-web
//        for issue 17 point 4, svc-base with BENCH_BASE_ROOT)
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  createAdminKey,
  databaseUrl,
  describeMachine,
  dropDatabase,
  findDescendant,
  findFreePort,
  offerOpenLoop,
  median,
  percentile,
  postgresCpuSeconds,
  postJson,
  processCpuSeconds,
  processMemory,
  ProcessGroup,
  recreateDatabase,
  root,
  waitForHttp,
  waitUntil,
} from "../lib/harness.mjs";
import { smallDocumentBody } from "./documents.mjs";

const list = (value) => value.split(",").map((item) => item.trim()).filter(Boolean);
const rates = list(process.env.BENCH_RATES ?? "100,200,400,800").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const drainSeconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 30);
const targets = list(process.env.BENCH_TARGETS ?? "lance-anchor,anchor,svc");
const REQUEST_TIMEOUT_MS = 30_000;
const POLL_PAUSE_MS = 50;
/** Keeping up: indexed/s in steady state at least this share of the offered rate, and as many accepted. */
const KEEP_UP = 0.95;

function baseRoot() {
  const base = process.env.BENCH_BASE_ROOT;
  if (!base) throw new Error("the svc-base target needs BENCH_BASE_ROOT: a checkout of the earlier version, built");
  return path.resolve(base);
}

/** Starts one target on a fresh database; returns where to send, how to ask what is indexed, whose RSS to watch. */
async function startTarget(name, processes, dbName) {
  await recreateDatabase(dbName);
  const url = databaseUrl(dbName);
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  if (name === "anchor") {
    const server = processes.start("anchor", [path.join(root, "bench/e2e/anchor-server.mjs")], {
      env: { ...process.env, ANCHOR_DATABASE_URL: url, ANCHOR_PORT: String(port) },
    });
    await waitForHttp(`${base}/`);
    return {
      port,
      headers: {},
      indexedQuery: "SELECT id FROM anchor_document WHERE id = ANY($1)",
      indexes: true,
      pids: { anchor: server.pid },
      url,
    };
  }
  if (name === "lance-anchor") {
    // The index of this run only, removed with its database.
    const indexDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-e2e-lance-anchor-"));
    const server = processes.start("lance-anchor", ["--import", "tsx", path.join(root, "bench/e2e/lance-anchor-server.mjs")], {
      cwd: path.join(root, "bench"),
      env: { ...process.env, ANCHOR_DATABASE_URL: url, ANCHOR_PORT: String(port), ANCHOR_INDEX_DIR: indexDir },
    });
    await waitForHttp(`${base}/`);
    return {
      port,
      headers: {},
      indexedQuery: "SELECT id FROM lance_anchor_document WHERE id = ANY($1)",
      indexes: true,
      pids: { anchor: server.pid },
      url,
      indexDir,
    };
  }
  const checkout = name === "svc-base" ? baseRoot() : root;
  const key = createAdminKey(url, checkout);
  const webOnly = name === "svc-web";
  // The search index of this run only, removed with its database.
  const indexDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-e2e-index-"));
  const svc = processes.start("svc start", [path.join(checkout, "apps/cli/dist/svc.js"), "start", ...(webOnly ? ["web"] : [])], {
    cwd: checkout,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOSTNAME: "127.0.0.1", SVC_INDEX_DIR: indexDir, NEXT_TELEMETRY_DISABLED: "1" },
  });
  // Ready: database and migrations, and a worker heartbeat unless there is no worker.
  const ready = async () => {
    const response = await fetch(`${base}/api/ready`);
    if (response.ok) return true;
    const { checks } = await response.json();
    return webOnly && checks.database.status === "ok" && checks.migrations.status === "ok";
  };
  await waitUntil("svc to be ready", async () => ready().catch(() => false), 120_000);
  const web = findDescendant(svc.pid, "apps/web/dist/server.js");
  const worker = webOnly ? null : findDescendant(svc.pid, "apps/worker/dist/main.js");
  if (!web || (!webOnly && !worker)) throw new Error("could not find the web and worker processes under svc start");
  return {
    port,
    headers: { authorization: `Bearer ${key}` },
    indexedQuery: "SELECT id FROM document WHERE id = ANY($1) AND indexing_status = 'indexed'",
    pids: webOnly ? { web } : { web, worker },
    indexes: !webOnly,
    url,
    indexDir,
  };
}

/** One target at one offered rate, open loop, on a fresh database. */
async function measure(name, rate, run) {
  const processes = new ProcessGroup();
  const dbName = `svc_bench_e2e_${name.replaceAll("-", "_")}_${process.pid}`;
  let target;
  let client;
  let stopPolling = async () => undefined;
  let memoryTimer;
  try {
    target = await startTarget(name, processes, dbName);
    client = new pg.Client({ connectionString: target.url });
    await client.connect();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4096 });
    /** id → { due, accepted, indexed } in performance.now() milliseconds. */
    const documents = new Map();
    const waiting = new Set();
    const answers = {};
    let outstanding = 0;

    function send(index, due) {
      const id = `e2e-${run}-${rate}-${index}`;
      const body = smallDocumentBody(id, index);
      const timing = { due, accepted: undefined, indexed: undefined };
      documents.set(id, timing);
      outstanding += 1;
      const finish = (status) => {
        outstanding -= 1;
        answers[status] = (answers[status] ?? 0) + 1;
        if (status !== 200) return;
        timing.accepted = performance.now();
        if (target.indexes) waiting.add(id);
      };
      void postJson({ agent, port: target.port, headers: target.headers, body, timeoutMs: REQUEST_TIMEOUT_MS }).then(({ status }) => finish(status));
    }

    // The poller: one query after another (a slow database slows the polls, not the load), in slices.
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const ids = [...waiting];
        for (let start = 0; start < ids.length; start += 5_000) {
          const { rows } = await client.query(target.indexedQuery, [ids.slice(start, start + 5_000)]);
          const seen = performance.now();
          for (const { id } of rows) {
            documents.get(id).indexed = seen;
            waiting.delete(id);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_PAUSE_MS));
      }
    })();
    // A measurement that fails stops its poller before the client closes under it.
    stopPolling = async () => {
      polling = false;
      await poller.catch(() => undefined);
    };

    const rss = Object.fromEntries(Object.keys(target.pids).map((part) => [part, { samples: [], idle: processMemory(target.pids[part]).rss }]));
    memoryTimer = setInterval(() => {
      for (const [part, pid] of Object.entries(target.pids)) rss[part].samples.push(processMemory(pid).rss);
    }, 500);

    const loadBefore = os.loadavg();
    const cpuSeconds = () => ({
      ...Object.fromEntries(Object.entries(target.pids).map(([part, pid]) => [part, processCpuSeconds(pid)])),
      database: postgresCpuSeconds(),
    });
    const cpuBefore = cpuSeconds();
    const total = rate * seconds;
    const startedAt = await offerOpenLoop(rate, total, send);
    const endedAt = performance.now();
    await waitUntil("every request to be answered", async () => outstanding === 0, REQUEST_TIMEOUT_MS + 5_000);
    // Whatever is indexed within the drain window counts in the latencies; the rest counts as never.
    await waitUntil("the accepted documents to be indexed", async () => waiting.size === 0, drainSeconds * 1000).catch(() => undefined);
    const cpuAfter = cpuSeconds();
    polling = false;
    await poller;
    clearInterval(memoryTimer);
    const loadAfter = os.loadavg();
    agent.destroy();

    const steadyFrom = startedAt + warmupSeconds * 1000;
    const all = [...documents.values()];
    const steady = all.filter((timing) => timing.due >= steadyFrom);
    const indexedInWindow = all.filter((timing) => timing.indexed >= steadyFrom && timing.indexed <= endedAt).length;
    const acceptedInWindow = all.filter((timing) => timing.accepted >= steadyFrom && timing.accepted <= endedAt).length;
    const window = (endedAt - steadyFrom) / 1000;
    const sorted = (values) => values.sort((a, b) => a - b);
    const acceptToIndexed = sorted(steady.filter((t) => t.accepted !== undefined).map((t) => (t.indexed ?? Infinity) - t.accepted));
    const dueToIndexed = sorted(steady.map((t) => (t.indexed ?? Infinity) - t.due));
    const acceptLatency = sorted(steady.filter((t) => t.accepted !== undefined).map((t) => t.accepted - t.due));
    // CPU per 1,000 accepted documents, from the first request to the drain's end: what each part
    // spends on a document, whether or not the machine was saturated.
    const accepted = answers[200] ?? 0;
    const cpuPerThousand = Object.fromEntries(Object.keys(cpuBefore).map((part) => [part, ((cpuAfter[part] - cpuBefore[part]) * 1000) / accepted]));
    const memory = Object.fromEntries(
      Object.entries(rss).map(([part, { samples, idle }]) => [part, { idle, median: median(samples), peak: Math.max(...samples, processMemory(target.pids[part]).peak) }]),
    );
    return {
      name,
      rate,
      run,
      answers,
      acceptedPerSecond: acceptedInWindow / window,
      indexes: target.indexes,
      indexedPerSecond: indexedInWindow / window,
      neverIndexed: all.filter((t) => t.accepted !== undefined && t.indexed === undefined).length,
      acceptP50: percentile(acceptLatency, 50),
      acceptP99: percentile(acceptLatency, 99),
      indexedP50: percentile(acceptToIndexed, 50),
      indexedP99: percentile(acceptToIndexed, 99),
      dueIndexedP50: percentile(dueToIndexed, 50),
      dueIndexedP99: percentile(dueToIndexed, 99),
      memory,
      cpuPerThousand,
      loadBefore,
      loadAfter,
    };
  } catch (error) {
    console.error(`${name} at ${rate}/s, run ${run}: ${error.message}`);
    throw error;
  } finally {
    clearInterval(memoryTimer);
    await stopPolling();
    await client?.end().catch(() => undefined);
    await processes.stopAllAndWait();
    await dropDatabase(dbName).catch(() => undefined);
    if (target?.indexDir) rmSync(target.indexDir, { recursive: true, force: true });
  }
}

const ms = (value) => (value === undefined ? "-" : Number.isFinite(value) ? `${value.toFixed(0)} ms` : "never");
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const cpu = (perThousand) => Object.entries(perThousand).map(([part, value]) => `${part} ${value.toFixed(1)}`).join(", ");
const load = (averages) => averages.map((value) => value.toFixed(1)).join(" ");
const keepsUp = (result) => result.indexedPerSecond >= KEEP_UP * result.rate && (result.answers[200] ?? 0) >= KEEP_UP * result.rate * seconds;

console.log(`machine: ${describeMachine()}; load average (1/5/15 min) at start: ${load(os.loadavg())}`);
console.log(`offered: ${seconds} s per rate, open loop, ~${smallDocumentBody("e2e-0-0-0", 0).length} B documents (2–3 sections of ~100 words); steady state from ${warmupSeconds} s`);
const results = [];
for (let run = 1; run <= runs; run += 1) {
  for (const rate of rates) {
    // Alternate which target goes first, so a drift in the machine's load does not favour one.
    const order = run % 2 === 1 ? targets : [...targets].reverse();
    for (const name of order) {
      const result = await measure(name, rate, run);
      results.push(result);
      const parts = Object.entries(result.memory).map(([part, m]) => `${part} RSS ${mb(m.idle)} idle, ${mb(m.median)} median, ${mb(m.peak)} peak`);
      console.log(
        `run ${run} ${name} @ ${rate}/s: answers ${JSON.stringify(result.answers)}; accepted ${result.acceptedPerSecond.toFixed(0)}/s, ` +
          (result.indexes
            ? `indexed ${result.indexedPerSecond.toFixed(0)}/s (${keepsUp(result) ? "keeps up" : "falls behind"}), ${result.neverIndexed} not indexed ${drainSeconds} s after the load; `
            : "no worker; ") +
          `due→accepted p50 ${ms(result.acceptP50)} p99 ${ms(result.acceptP99)}; accept→indexed p50 ${ms(result.indexedP50)} p99 ${ms(result.indexedP99)}; ` +
          `due→indexed p50 ${ms(result.dueIndexedP50)} p99 ${ms(result.dueIndexedP99)}; ${parts.join("; ")}; CPU s per 1,000 accepted: ${cpu(result.cpuPerThousand)}; load ${load(result.loadBefore)} → ${load(result.loadAfter)}`,
      );
    }
  }
}

console.log("\nmedians over runs:");
console.log("| rate | target | indexed/s | keeps up (runs) | due→accepted p50 / p99 | accept→indexed p50 / p99 | due→indexed p50 / p99 | RSS median (peak) | CPU s per 1,000 accepted |");
console.log("|---|---|---|---|---|---|---|---|---|");
const summary = {};
for (const rate of rates) {
  for (const name of targets) {
    const mine = results.filter((r) => r.rate === rate && r.name === name);
    const med = (field) => median(mine.map((r) => r[field]));
    summary[`${name}@${rate}`] = { indexed: med("indexedPerSecond"), acceptP99: med("acceptP99"), keepsUp: mine.filter(keepsUp).length > mine.length / 2 };
    const parts = Object.keys(mine[0].memory)
      .map((part) => `${part} ${mb(median(mine.map((r) => r.memory[part].median)))} (${mb(median(mine.map((r) => r.memory[part].peak)))})`)
      .join(", ");
    const cpuMedians = Object.fromEntries(Object.keys(mine[0].cpuPerThousand).map((part) => [part, median(mine.map((r) => r.cpuPerThousand[part]))]));
    console.log(
      `| ${rate} | ${name} | ${med("indexedPerSecond").toFixed(0)} (${mine.map((r) => r.indexedPerSecond.toFixed(0)).join(", ")}) | ` +
        `${mine.filter(keepsUp).length}/${mine.length} | ${ms(med("acceptP50"))} / ${ms(med("acceptP99"))} | ${ms(med("indexedP50"))} / ${ms(med("indexedP99"))} | ${ms(med("dueIndexedP50"))} / ${ms(med("dueIndexedP99"))} | ${parts} | ${cpu(cpuMedians)} |`,
    );
  }
  for (const anchor of ["lance-anchor", "anchor"].filter((name) => targets.includes(name) && targets.includes("svc"))) {
    console.log(`ratio svc/${anchor} of indexed/s at ${rate}/s: ${(summary[`svc@${rate}`].indexed / summary[`${anchor}@${rate}`].indexed).toFixed(2)}`);
  }
  if (targets.includes("svc") && targets.includes("svc-base")) {
    const of = (name) => summary[`${name}@${rate}`];
    console.log(
      `svc / svc-base at ${rate}/s: indexed/s ${(of("svc").indexed / of("svc-base").indexed).toFixed(2)}, ` +
        `due→accepted p99 ${(of("svc").acceptP99 / of("svc-base").acceptP99).toFixed(2)}`,
    );
  }
  if (targets.includes("svc") && targets.includes("svc-web")) {
    const ratio = summary[`svc@${rate}`].acceptP99 / summary[`svc-web@${rate}`].acceptP99;
    console.log(`due→accepted p99 at ${rate}/s, with the worker / web alone: ${ratio.toFixed(2)} (issue 17 §4: at most 2)`);
  }
}
for (const name of targets.filter((target) => target !== "svc-web")) {
  const sustained = rates.filter((rate) => summary[`${name}@${rate}`].keepsUp);
  console.log(`${name}: highest offered rate kept up with: ${sustained.length ? `${Math.max(...sustained)}/s` : "none"} (of ${rates.join(", ")})`);
}
console.log(`load average at the end: ${load(os.loadavg())}`);
