// bench/overload: ingestion under more load than svc can take (issue 12, "Backpressure"). An open-loop
// generator offers BENCH_RATE ingestions per second for BENCH_SECONDS against `svc start` (web +
// worker) on DATABASE_URL's server, whatever the answers; each request's latency counts from the
// moment it was due, so a slow server cannot hide its queue. Then: every id answered 200 must be in
// the database, and the indexing queue must drain.
//   pnpm build && node bench/overload/run.mjs     (env: DATABASE_URL, BENCH_RATE, BENCH_SECONDS, SVC_MAX_IN_FLIGHT,
//   SVC_MAX_EVENT_LOOP_DELAY_MS, SVC_MAX_CONNECTIONS, …)
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
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
  percentile,
  planningNotesBody,
  postJson,
  processMemory,
  ProcessGroup,
  recreateDatabase,
  root,
  waitUntil,
} from "../lib/harness.mjs";
import os from "node:os";

const rate = Number(process.env.BENCH_RATE ?? 800);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const drainDeadlineSeconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 900);
// The worker's memory is sampled this often from the start of the load to the drain (issue 17 §2's soak).
const sampleSeconds = Number(process.env.BENCH_SAMPLE_SECONDS ?? 10);
const REQUEST_TIMEOUT_MS = 30_000;

const processes = new ProcessGroup();
// One database per run, dropped at the end: engineers sharing the machine may run this at once.
const dbName = `svc_bench_overload_${process.pid}`;
const PORT = await findFreePort();
// Its own search index too: the checkout's default one belongs to the database `pnpm start` uses.
const indexDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-overload-index-"));
let client;
try {
  await recreateDatabase(dbName);
  const url = databaseUrl(dbName);
  const key = createAdminKey(url);
  const svc = processes.start("svc start", [path.join(root, "apps/cli/dist/svc.js"), "start"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: String(PORT), HOSTNAME: "127.0.0.1", SVC_INDEX_DIR: indexDir, NEXT_TELEMETRY_DISABLED: "1" },
  });
  const base = `http://127.0.0.1:${PORT}`;
  await waitUntil("svc to be ready (web, database, a worker heartbeat)", async () => (await fetch(`${base}/api/ready`)).ok, 120_000);
  const webPid = findDescendant(svc.pid, "apps/web/dist/server.js");
  const workerPid = findDescendant(svc.pid, "apps/worker/dist/main.js");
  if (!webPid || !workerPid) throw new Error("could not find the web and worker processes under svc start");
  client = new pg.Client({ connectionString: url });
  await client.connect();

  const agent = new http.Agent({ keepAlive: true, maxSockets: 4096 });
  const results = [];
  const accepted = [];
  let outstanding = 0;
  let maxOutstanding = 0;
  let webRssMax = 0;

  // How late the generator itself sent each request (a starved client counts in every latency).
  const sendLags = [];
  function send(index, dueAt) {
    sendLags.push(performance.now() - dueAt);
    const id = `overload-${index}`;
    const body = planningNotesBody(id, index);
    outstanding += 1;
    maxOutstanding = Math.max(maxOutstanding, outstanding);
    const finish = (status) => {
      outstanding -= 1;
      const latency = performance.now() - dueAt;
      results.push({ status, latency });
      if (status === 200) accepted.push(id);
    };
    void postJson({ agent, port: PORT, key, body, timeoutMs: REQUEST_TIMEOUT_MS }).then(({ status }) => finish(status));
  }

  // The machine may be shared: its load before and after says how much of it svc had.
  const loadBefore = os.loadavg();
  const webRssIdle = processMemory(webPid).rss;
  const webHeapIdle = await readHeapMetrics(base, key);
  process.stderr.write(`offering ${rate}/s for ${seconds} s…\n`);
  const total = rate * seconds;
  const memoryTimer = setInterval(() => {
    webRssMax = Math.max(webRssMax, processMemory(webPid).rss);
  }, 250);
  const workerSamples = [];
  const loadStarted = performance.now();
  const sampleWorker = async () => workerSamples.push({ at: (performance.now() - loadStarted) / 1000, ...processMemory(workerPid), heap: await readHeapMetrics(base, key, "worker") });
  await sampleWorker();
  const workerTimer = setInterval(() => void sampleWorker(), sampleSeconds * 1000);
  const startedAt = await offerOpenLoop(rate, total, send);
  const offeredSeconds = (performance.now() - startedAt) / 1000;
  await waitUntil("every request to be answered", async () => outstanding === 0, REQUEST_TIMEOUT_MS + 5_000);
  clearInterval(memoryTimer);
  const webMemory = processMemory(webPid);
  const webHeap = await readHeapMetrics(base, key);
  const workerMemory = processMemory(workerPid);

  // Nothing accepted is lost: every id answered 200 is a document row.
  let found = 0;
  for (let start = 0; start < accepted.length; start += 10_000) {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM document WHERE id = ANY($1)", [accepted.slice(start, start + 10_000)]);
    found += rows[0].n;
  }
  // The service drains: nothing queued or being indexed, no index-document job left to run.
  const drainStarted = performance.now();
  await waitUntil(
    "the indexing queue to drain",
    async () => {
      const { rows } = await client.query(
        `SELECT (SELECT count(*) FROM document WHERE indexing_status IN ('queued', 'indexing'))::int AS pending,
                (SELECT count(*) FROM pgboss.job WHERE name = 'index-document' AND state IN ('created', 'retry', 'active'))::int AS jobs`,
      );
      return rows[0].pending === 0 && rows[0].jobs === 0;
    },
    drainDeadlineSeconds * 1000,
  );
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  clearInterval(workerTimer);
  await sampleWorker();
  const { rows: indexed } = await client.query("SELECT count(*)::int AS n FROM document WHERE indexing_status = 'indexed'");
  const readyAfter = (await fetch(`${base}/api/ready`)).status;
  const webHeapDrained = await readHeapMetrics(base, key);
  const webRssDrained = processMemory(webPid).rss;

  const byStatus = {};
  for (const result of results) byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
  const latencies = (status) => results.filter((r) => r.status === status).map((r) => r.latency).sort((a, b) => a - b);
  const ok = latencies(200);
  const refused = latencies(429);
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  const ms = (value) => (value === undefined ? "-" : `${value.toFixed(0)} ms`);
  const load = (averages) => averages.map((value) => value.toFixed(1)).join(" ");
  console.log(`machine: ${describeMachine()}`);
  console.log(`load average (1/5/15 min): ${load(loadBefore)} before the load, ${load(os.loadavg())} after the drain`);
  console.log(`offered: ${total} ingestions in ${offeredSeconds.toFixed(1)} s (${(total / offeredSeconds).toFixed(0)}/s), ~${planningNotesBody("overload-0", 0).length} B each, open loop`);
  console.log(
    `limits: SVC_MAX_IN_FLIGHT=${process.env.SVC_MAX_IN_FLIGHT ?? "default"}, SVC_MAX_QUEUE_DEPTH=${process.env.SVC_MAX_QUEUE_DEPTH ?? "default"}, ` +
      `SVC_MAX_EVENT_LOOP_DELAY_MS=${process.env.SVC_MAX_EVENT_LOOP_DELAY_MS ?? "default"}, SVC_MAX_CONNECTIONS=${process.env.SVC_MAX_CONNECTIONS ?? "default"}`,
  );
  console.log(`answers: ${JSON.stringify(byStatus)}; client-side requests outstanding at most ${maxOutstanding}`);
  console.log(`accepted: ${ok.length} (${(ok.length / offeredSeconds).toFixed(0)}/s); p50 ${ms(percentile(ok, 50))}, p99 ${ms(percentile(ok, 99))}, max ${ms(ok.at(-1))}`);
  console.log(`429: ${refused.length} (${(refused.length / offeredSeconds).toFixed(0)}/s); p50 ${ms(percentile(refused, 50))}, p99 ${ms(percentile(refused, 99))}`);
  const lags = sendLags.sort((a, b) => a - b);
  console.log(`client send lag (due → sent): p50 ${ms(percentile(lags, 50))}, p99 ${ms(percentile(lags, 99))}, max ${ms(lags.at(-1))}`);
  console.log(`web RSS: ${mb(webRssIdle)} idle before the load, peak ${mb(Math.max(webMemory.peak, webRssMax))} (VmHWM), ${mb(webMemory.rss)} after; worker RSS peak ${mb(workerMemory.peak)}`);
  console.log(`web heap (its /api/metrics): idle ${webHeapIdle}; after the load ${webHeap}; drained ${webHeapDrained}, RSS ${mb(webRssDrained)}`);
  console.log(`worker memory every ${sampleSeconds} s (RSS = anonymous + file-backed; heap as of its last heartbeat):`);
  for (const sample of workerSamples) {
    console.log(`  t=${sample.at.toFixed(0).padStart(4)} s  RSS ${mb(sample.rss)} (anon ${mb(sample.anon)}, file ${mb(sample.file)}), ${sample.heap}`);
  }
  console.log(`lost: ${accepted.length - found} of ${accepted.length} accepted ids missing from the database`);
  agent.destroy();
  console.log(`drained in ${drainSeconds.toFixed(1)} s after the last answer; ${indexed[0].n} documents indexed; /api/ready ${readyAfter}`);
} finally {
  await client?.end().catch(() => undefined);
  await processes.stopAllAndWait();
  await dropDatabase(dbName).catch(() => undefined);
  rmSync(indexDir, { recursive: true, force: true });
}

/** Where a process's memory is, from the V8 figures GET /api/metrics serves (the web's own, or the workers' heartbeats). */
async function readHeapMetrics(base, key, component = "web") {
  const response = await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${key}` } });
  const lines = (await response.text()).split("\n").filter((line) => line.includes(`component="${component}"`));
  const value = (name) => Number(lines.find((line) => line.startsWith(`${name}{`))?.split(" ").at(-1));
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  const spaces = lines
    .filter((line) => line.startsWith("nodejs_heap_space_size_total_bytes{"))
    .map((line) => ({ space: line.match(/space="(\w+)"/)?.[1], bytes: Number(line.split(" ").at(-1)) }))
    .filter(({ bytes }) => bytes > 2 ** 20)
    .map(({ space, bytes }) => `${space} ${mb(bytes)}`);
  return (
    `heap ${mb(value("nodejs_heap_size_used_bytes"))} used of ${mb(value("nodejs_heap_size_total_bytes"))} (${spaces.join(", ")}), ` +
    `external ${mb(value("nodejs_external_memory_bytes"))}` +
    (component === "worker" ? `, LanceDB caches ${mb(value("svc_search_index_cache_bytes"))}` : "")
  );
}
