// bench/ingest/batch.mjs: documents/s through POST /api/svc-api/ingestion/batch against single
// POST /api/svc-api/ingestion calls, same server, same concurrency, measured alternately in one run.
//   pnpm build && node bench/ingest/batch.mjs
//   (env: DATABASE_URL, BENCH_RUNS, BENCH_DOCUMENTS, BENCH_CONNECTIONS, BENCH_BATCH_SIZE)
// Each run sends a fixed number of documents per mode and times it until the last answer: a run of
// fixed duration would drop the batches still in flight at its end (seconds of work each), and
// leave them running into the next mode's measurement.
import os from "node:os";
import autocannon from "autocannon";
import { createAdminKey, databaseUrl, describeMachine, median, planningNotesBody, ProcessGroup, recreateDatabase, waitForHttp } from "../lib/harness.mjs";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const documentsPerRun = Number(process.env.BENCH_DOCUMENTS ?? 64_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const batchSize = Number(process.env.BENCH_BATCH_SIZE ?? 1000);
const SVC_PORT = 3102;

// ~2 KB documents with unique ids (the same documents as bench/ingest/run.mjs).
let sequence = 0;
function nextDocument(prefix) {
  sequence += 1;
  return planningNotesBody(`${prefix}-${process.pid}-${sequence}`, sequence);
}

function batchBody(prefix) {
  return `{"documents":[${Array.from({ length: batchSize }, () => nextDocument(prefix)).join(",")}]}`;
}

/**
 * Sends `documentsPerRun` documents and counts those accepted (a 200, and for a batch every item
 * accepted). Any other answer is reported with its status and left out of the rate: on a starved
 * machine a request now and then ends in a timeout, which must show rather than stop the run.
 */
function measure({ url, headers, body, documentsPerRequest }) {
  return new Promise((resolve, reject) => {
    let accepted = 0;
    const failures = {};
    autocannon(
      {
        url,
        method: "POST",
        connections,
        amount: Math.ceil(documentsPerRun / documentsPerRequest),
        // A few batches of 1,000 in flight take seconds each on a loaded machine: not an error.
        timeout: 120,
        headers: { "content-type": "application/json", ...headers },
        requests: [
          {
            setupRequest: (request) => ({ ...request, body: body() }),
            onResponse: (status, responseBody) => {
              if (status !== 200) {
                failures[status] = (failures[status] ?? 0) + 1;
                process.stderr.write(`${url}: ${status} ${String(responseBody).slice(0, 200)}\n`);
                return;
              }
              // An item refused inside a 200 does not count as accepted.
              const refused = documentsPerRequest > 1 ? (String(responseBody).match(/"error":/g)?.length ?? 0) : 0;
              accepted += documentsPerRequest - refused;
              if (refused > 0) failures["refused items"] = (failures["refused items"] ?? 0) + refused;
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.errors > 0) failures["errors/timeouts"] = result.errors;
        const elapsedSeconds = (new Date(result.finish).getTime() - new Date(result.start).getTime()) / 1000;
        resolve({ documentsPerSecond: accepted / elapsedSeconds, p99: result.latency.p99, failures });
      },
    );
  });
}

const processes = new ProcessGroup();
try {
  await recreateDatabase("svc_bench_ingest_batch");
  const url = databaseUrl("svc_bench_ingest_batch");
  const key = createAdminKey(url);
  // No worker runs, so the queue only grows: lift the queue-depth bound, and the event-loop bound
  // (a 1,000-document body is parsed and validated in one go), so both modes measure acceptance alone.
  Object.assign(process.env, { SVC_MAX_QUEUE_DEPTH: "100000000", SVC_MAX_EVENT_LOOP_DELAY_MS: "0" });
  processes.startWebServer(url, SVC_PORT);
  const single = `http://127.0.0.1:${SVC_PORT}/api/svc-api/ingestion`;
  const batch = `${single}/batch`;
  await waitForHttp(single);
  const headers = { authorization: `Bearer ${key}` };
  const modes = {
    single: { url: single, headers, body: () => nextDocument("single"), documentsPerRequest: 1 },
    batch: { url: batch, headers, body: () => batchBody("batch"), documentsPerRequest: batchSize },
  };

  process.stderr.write("warming up…\n");
  for (const mode of Object.values(modes)) {
    await new Promise((resolve) =>
      autocannon(
        {
          url: mode.url,
          method: "POST",
          connections,
          amount: Math.max(connections, Math.ceil(documentsPerRun / 4 / mode.documentsPerRequest)),
          timeout: 120,
          headers: { "content-type": "application/json", ...headers },
          requests: [{ setupRequest: (r) => ({ ...r, body: mode.body() }) }],
        },
        resolve,
      ),
    );
  }

  const loadBefore = os.loadavg();
  const results = { single: [], batch: [] };
  for (let run = 1; run <= runs; run += 1) {
    for (const [name, mode] of Object.entries(modes)) results[name].push(await measure(mode));
    const [s, b] = [results.single.at(-1), results.batch.at(-1)];
    process.stderr.write(
      `run ${run}: single ${s.documentsPerSecond.toFixed(0)} docs/s p99 ${s.p99} ms | batch ${b.documentsPerSecond.toFixed(0)} docs/s p99 ${b.p99} ms\n`,
    );
    for (const [name, result] of [["single", s], ["batch", b]]) {
      if (Object.keys(result.failures).length > 0) process.stderr.write(`  ${name} failures: ${JSON.stringify(result.failures)}\n`);
    }
  }
  const loadAfter = os.loadavg();

  const docs = (list) => median(list.map((r) => r.documentsPerSecond));
  const p99 = (list) => median(list.map((r) => r.p99));
  console.log(`machine: ${describeMachine()}; load average (1/5/15 min) before ${loadBefore.map((l) => l.toFixed(1)).join("/")}, after ${loadAfter.map((l) => l.toFixed(1)).join("/")}`);
  console.log(`${runs} runs × ${documentsPerRun} documents per mode, ${connections} connections, ~${nextDocument("size").length} B documents, unique ids, ${batchSize} documents per batch`);
  console.log(`| mode | documents/s (median) | request p99 ms (median) | runs (documents/s) |`);
  console.log(`|---|---|---|---|`);
  for (const name of ["single", "batch"]) {
    console.log(`| ${name} | ${docs(results[name]).toFixed(0)} | ${p99(results[name])} | ${results[name].map((r) => r.documentsPerSecond.toFixed(0)).join(", ")} |`);
  }
  const failures = (list) => list.map((r) => JSON.stringify(r.failures)).filter((f) => f !== "{}").join("; ") || "none";
  console.log(`failed requests: single ${failures(results.single)}, batch ${failures(results.batch)}`);
  console.log(`ratio batch / single documents/s: ${(docs(results.batch) / docs(results.single)).toFixed(2)}`);
} finally {
  processes.stopAll();
}
