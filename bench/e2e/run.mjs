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
import os from "node:os";
import { describeMachine, envList, median } from "../lib/harness.mjs";
import { smallDocumentBody } from "./documents.mjs";
import { measure } from "./measure.mjs";

const rates = envList("BENCH_RATES", "100,200,400,800").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const drainSeconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 30);
const targets = envList("BENCH_TARGETS", "lance-anchor,anchor,svc");
/** Keeping up: indexed/s in steady state at least this share of the offered rate, and as many accepted. */
const KEEP_UP = 0.95;

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
      const result = await measure(name, rate, run, { seconds, warmupSeconds, drainSeconds });
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
