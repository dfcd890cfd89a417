// bench/ingest: throughput and p99 of POST /api/svc-api/ingestion on the production build, against
// a bare node:http + pg server doing the same transaction, measured alternately in one run.
//   pnpm build && node bench/ingest/run.mjs     (env: DATABASE_URL, BENCH_RUNS, BENCH_SECONDS, BENCH_CONNECTIONS)
import path from "node:path";
import autocannon from "autocannon";
import { createAdminKey, databaseUrl, describeMachine, planningNotesBody, ProcessGroup, recreateDatabase, root, waitForHttp } from "../lib/harness.mjs";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SVC_PORT = 3100;
const BASELINE_PORT = 3101;


// ~2 KB documents with unique ids.
let sequence = 0;
function documentBody(prefix) {
  sequence += 1;
  return planningNotesBody(`${prefix}-${process.pid}-${sequence}`, sequence);
}

function measure(url, headers, prefix) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: "POST",
        connections,
        duration: seconds,
        headers: { "content-type": "application/json", ...headers },
        requests: [{ setupRequest: (request) => ({ ...request, body: documentBody(prefix) }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0) {
          return reject(new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`));
        }
        resolve({ requestsPerSecond: result.requests.average, p99: result.latency.p99, total: result.requests.total });
      },
    );
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const processes = new ProcessGroup();
try {
  await recreateDatabase("svc_bench_ingest");
  await recreateDatabase("svc_bench_baseline");
  const svcUrl = databaseUrl("svc_bench_ingest");
  const key = createAdminKey(svcUrl);
  // No worker runs here (the acceptance path alone), so the queue only grows: lift the queue-depth
  // limit, which would otherwise answer 429 once ~50,000 documents wait.
  process.env.SVC_MAX_QUEUE_DEPTH ??= String(1_000_000_000);
  processes.startWebServer(svcUrl, SVC_PORT);
  processes.start("baseline", [path.join(root, "bench/ingest/baseline-server.mjs")], {
    env: { ...process.env, BASELINE_DATABASE_URL: databaseUrl("svc_bench_baseline"), BASELINE_PORT: String(BASELINE_PORT) },
  });
  const svcEndpoint = `http://127.0.0.1:${SVC_PORT}/api/svc-api/ingestion`;
  const baselineEndpoint = `http://127.0.0.1:${BASELINE_PORT}/`;
  await waitForHttp(svcEndpoint);
  await waitForHttp(baselineEndpoint);
  const auth = { authorization: `Bearer ${key}` };

  // Warm both (JIT, connection pools, Next's route compilation) before measuring.
  const warm = seconds;
  process.stderr.write("warming up…\n");
  for (const [url, headers, prefix] of [[svcEndpoint, auth, "warm"], [baselineEndpoint, {}, "warm"]]) {
    await new Promise((resolve) => autocannon({ url, method: "POST", connections, duration: Math.min(5, warm), headers: { "content-type": "application/json", ...headers }, requests: [{ setupRequest: (r) => ({ ...r, body: documentBody(prefix) }) }] }, resolve));
  }

  const results = { svc: [], baseline: [] };
  for (let run = 1; run <= runs; run += 1) {
    results.svc.push(await measure(svcEndpoint, auth, `svc-${run}`));
    results.baseline.push(await measure(baselineEndpoint, {}, `base-${run}`));
    const [s, b] = [results.svc.at(-1), results.baseline.at(-1)];
    process.stderr.write(`run ${run}: svc ${s.requestsPerSecond.toFixed(0)} req/s p99 ${s.p99} ms | baseline ${b.requestsPerSecond.toFixed(0)} req/s p99 ${b.p99} ms\n`);
  }

  const summary = (list) => ({ rps: median(list.map((r) => r.requestsPerSecond)), p99: median(list.map((r) => r.p99)) });
  const svc = summary(results.svc);
  const baseline = summary(results.baseline);
  console.log(`machine: ${describeMachine()}`);
  console.log(`${runs} runs × ${seconds} s, ${connections} connections, ~${documentBody("size").length} B documents, unique ids`);
  console.log(`| server | req/s (median) | p99 ms (median) | runs (req/s) |`);
  console.log(`|---|---|---|---|`);
  console.log(`| svc (apps/web/dist/server.js) | ${svc.rps.toFixed(0)} | ${svc.p99} | ${results.svc.map((r) => r.requestsPerSecond.toFixed(0)).join(", ")} |`);
  console.log(`| baseline (node:http + pg) | ${baseline.rps.toFixed(0)} | ${baseline.p99} | ${results.baseline.map((r) => r.requestsPerSecond.toFixed(0)).join(", ")} |`);
  console.log(`ratio svc / baseline throughput: ${(svc.rps / baseline.rps).toFixed(2)}`);
} finally {
  processes.stopAll();
}
