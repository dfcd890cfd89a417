// bench/cli/ingest.mjs: documents/s of `svc ingest FILE.jsonl` against the production web server,
// for the built CLI and, when BENCH_BEFORE_CLI names another build of it, that one too, alternately
// in one run (same server, same database). Each run ingests BENCH_DOCUMENTS new small documents.
//   pnpm build && node bench/cli/ingest.mjs
//   (env: DATABASE_URL, BENCH_RUNS (3), BENCH_DOCUMENTS (5000), BENCH_BEFORE_CLI, BENCH_CLI_ARGS)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAdminKey, databaseUrl, describeMachine, dropDatabase, findFreePort, median, ProcessGroup, recreateDatabase, root, waitForHttp } from "../lib/harness.mjs";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const documentsPerRun = Number(process.env.BENCH_DOCUMENTS ?? 5_000);
const extraArgs = process.env.BENCH_CLI_ARGS?.split(" ").filter(Boolean) ?? [];
const clis = { after: path.join(root, "apps/cli/dist/svc.js") };
if (process.env.BENCH_BEFORE_CLI) clis.before = path.resolve(process.env.BENCH_BEFORE_CLI);
const DATABASE = "svc_bench_cli_ingest";

const workDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-cli-ingest-"));
/** A .jsonl of `documentsPerRun` small (~300 B) documents whose ids no other run uses. */
function writeDocuments(prefix) {
  const file = path.join(workDir, `${prefix}.jsonl`);
  const lines = Array.from({ length: documentsPerRun }, (_, index) =>
    JSON.stringify({
      document: {
        id: `${prefix}-${index}`,
        semantic_identifier: `Note ${index}`,
        sections: [{ text: `Note ${index} of ${prefix}: the ingestion queue ships this quarter, ranking is tuned next.` }],
        metadata: { team: "platform" },
      },
    }),
  );
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** One `svc ingest`, timed from the command's start to its exit; its own rate (sending only) beside. */
function ingest(cli, file, apiUrl, key) {
  const started = performance.now();
  const output = execFileSync(process.execPath, [cli, "ingest", file, "--json", "--state", path.join(workDir, `${path.basename(file)}.state`), ...extraArgs], {
    env: { ...process.env, SVC_URL: apiUrl, SVC_API_KEY: key },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(output);
  if (summary.failed.length > 0 || summary.sent !== documentsPerRun) throw new Error(`not every document was ingested: ${output.slice(0, 500)}`);
  return { wall: summary.sent / seconds, sending: summary.documents_per_second };
}

const processes = new ProcessGroup();
try {
  await recreateDatabase(DATABASE);
  const url = databaseUrl(DATABASE);
  const key = createAdminKey(url);
  // No worker runs, so the queue only grows: lift the queue-depth and event-loop bounds, so that the
  // runs measure acceptance alone, as bench/ingest does.
  Object.assign(process.env, { SVC_MAX_QUEUE_DEPTH: "100000000", SVC_MAX_EVENT_LOOP_DELAY_MS: "0" });
  const port = await findFreePort();
  processes.startWebServer(url, port);
  const apiUrl = `http://127.0.0.1:${port}/api`;
  await waitForHttp(`${apiUrl}/svc-api/ingestion`);

  process.stderr.write("warming up…\n");
  for (const [name, cli] of Object.entries(clis)) ingest(cli, writeDocuments(`warm-${name}`), apiUrl, key);

  const loadBefore = os.loadavg();
  const results = Object.fromEntries(Object.keys(clis).map((name) => [name, []]));
  for (let run = 1; run <= runs; run += 1) {
    for (const [name, cli] of Object.entries(clis)) {
      const result = ingest(cli, writeDocuments(`${name}-${run}`), apiUrl, key);
      results[name].push(result);
      process.stderr.write(`run ${run} ${name}: ${result.wall.toFixed(0)} documents/s (command), ${result.sending.toFixed(0)} (sending)\n`);
    }
  }
  const loadAfter = os.loadavg();

  console.log(`machine: ${describeMachine()}; load average (1/5/15 min) before ${loadBefore.map((l) => l.toFixed(1)).join("/")}, after ${loadAfter.map((l) => l.toFixed(1)).join("/")}`);
  console.log(`${runs} runs × ${documentsPerRun} documents per CLI, ~300 B documents, new ids each run, CLI defaults${extraArgs.length > 0 ? ` and ${extraArgs.join(" ")}` : ""}`);
  console.log("| CLI | documents/s, whole command (median) | documents/s, sending (median) | runs (whole command) |");
  console.log("|---|---|---|---|");
  for (const [name, list] of Object.entries(results)) {
    const rate = (field) => median(list.map((result) => result[field])).toFixed(0);
    console.log(`| ${name} | ${rate("wall")} | ${rate("sending")} | ${list.map((result) => result.wall.toFixed(0)).join(", ")} |`);
  }
  if (results.before) console.log(`ratio after / before (whole command): ${(median(results.after.map((r) => r.wall)) / median(results.before.map((r) => r.wall))).toFixed(1)}`);
} finally {
  processes.stopAll();
  rmSync(workDir, { recursive: true, force: true });
  await dropDatabase(DATABASE).catch(() => {});
}
