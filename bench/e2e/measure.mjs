// bench/e2e's measurement, shared by the benchmarks that drive svc end to end (bench/e2e/run.mjs,
// bench/webhooks/run.mjs): a target started on a fresh database, an open-loop load of seeded small
// documents, a poller recording when each accepted document is indexed. See bench/e2e/run.mjs's head
// for the targets and what each figure means.

import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  createAdminKey,
  databaseUrl,
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

const REQUEST_TIMEOUT_MS = 30_000;
const POLL_PAUSE_MS = 50;
function baseRoot() {
  const base = process.env.BENCH_BASE_ROOT;
  if (!base) throw new Error("the svc-base target needs BENCH_BASE_ROOT: a checkout of the earlier version, built");
  return path.resolve(base);
}

/** Starts one target on a fresh database; returns where to send, how to ask what is indexed, whose RSS to watch. */
export async function startTarget(name, processes, dbName, env = {}) {
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
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOSTNAME: "127.0.0.1", SVC_INDEX_DIR: indexDir, NEXT_TELEMETRY_DISABLED: "1", ...env },
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
  // svc start's index maintenance process (none in a checkout from before it): its merges are part of
  // what indexing costs. It may take a moment longer than the worker to show.
  const maintenance = webOnly ? null : await findMaintenance(svc.pid);
  return {
    port,
    headers: { authorization: `Bearer ${key}` },
    indexedQuery: "SELECT id FROM document WHERE id = ANY($1) AND indexing_status = 'indexed'",
    pids: webOnly ? { web } : { web, worker, ...(maintenance && { maintenance }) },
    indexes: !webOnly,
    url,
    indexDir,
  };
}

/**
 * One target at one offered rate, open loop, on a fresh database: `seconds` of load, indexed/s counted
 * from `warmupSeconds`, accepted documents waited for `drainSeconds` after the load. `env` goes to `svc
 * start` (svc targets); `label` names the measurement (its database, its errors) when one target is
 * measured in several set-ups. Hooks, each awaited: `prepare(target)` once the target is ready, before
 * any load; `beforeLoad()` just before the first request; `settle({ documents, startedAt, endedAt, target })`
 * after the indexing drain, the target still running, its answer returned as the result's `settled`.
 * The result carries `documents` (id → { due, accepted, indexed }, performance.now() milliseconds).
 */
export async function measure(name, rate, run, { seconds, warmupSeconds, drainSeconds, env = {}, label = name, prepare, beforeLoad, settle } = {}) {
  const processes = new ProcessGroup();
  const dbName = `svc_bench_e2e_${label.replaceAll("-", "_")}_${process.pid}`;
  let target;
  let client;
  let stopPolling = async () => undefined;
  let memoryTimer;
  try {
    target = await startTarget(name, processes, dbName, env);
    await prepare?.(target);
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
    await beforeLoad?.();
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
    const settled = await settle?.({ documents, startedAt, endedAt, target });

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
      documents,
      settled,
    };
  } catch (error) {
    console.error(`${label} at ${rate}/s, run ${run}: ${error.message}`);
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

/** The maintenance process under `svc start`, waited for up to 5 s; null when this checkout has none. */
async function findMaintenance(svcPid) {
  for (let tries = 0; tries < 50; tries++) {
    const pid = findDescendant(svcPid, "apps/worker/dist/maintain.js");
    if (pid) return pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}
