// bench/webhooks: what events cost end to end (issue 42, "Measured, in bench/"), on bench/e2e's
// measurement (bench/e2e/measure.mjs: `svc start` on a fresh database, open-loop load of the same
// seeded documents, accept→indexed from a poller). svc runs with SVC_WEBHOOK_ALLOW_PRIVATE=true in
// every set-up, since the receiver (bench/webhooks/receiver.mjs, node:http in this process, verifying
// each signature) is on loopback. Two phases:
//   ab      for each rate, alternately in the same run: `without` (no endpoint) and `with` (one endpoint,
//           registered through REST POST /api/manage/admin/webhook with an admin key, every event type):
//           indexed/s of each and their ratio (issue 42: with ≥ 0.95 × without at 400/s); for `with`,
//           accept→delivered p50/p95/p99 (from the ingestion's 200 to the receiver's arrival of the
//           document's `document.indexed`; issue 42: p99 ≤ 1 s at 200/s) and deliveries per document.
//   outage  `with` at BENCH_OUTAGE_RATE: BENCH_WARMUP_SECONDS of load, then the receiver answers 503
//           (BENCH_OUTAGE_MODE=closed: its port closed) for BENCH_OUTAGE_SECONDS while the load goes
//           on, then recovers; BENCH_OUTAGE_AFTER_SECONDS more load. Indexed/s during the outage against
//           `without`'s at that rate (ab phase, same run) and against a control run of the same length
//           with the receiver up (indexed/s and accept→indexed in the same window), and once the load
//           ends, how long until every indexed document's event arrived (svc probes a failing endpoint
//           at most a minute apart), lost events and duplicates.
//   pnpm build && node bench/webhooks/run.mjs
//   env: DATABASE_URL, BENCH_RATES (200,400), BENCH_RUNS (3), BENCH_SECONDS (60), BENCH_WARMUP_SECONDS (10),
//        BENCH_DRAIN_SECONDS (30: indexing), BENCH_DELIVERY_DRAIN_SECONDS (3600: deliveries, after it),
//        BENCH_PHASES (ab,outage), BENCH_OUTAGE_SECONDS (600), BENCH_OUTAGE_RATE (the highest rate),
//        BENCH_OUTAGE_AFTER_SECONDS (60), BENCH_OUTAGE_MODE (503 | closed), BENCH_OUTAGE_RUNS (1),
//        BENCH_OUTAGE_FIRST (set: the outage runs before its control in odd runs; they alternate)
import os from "node:os";
import pg from "pg";
import { describeMachine, envList, median, percentile, waitUntil } from "../lib/harness.mjs";
import { smallDocumentBody } from "../e2e/documents.mjs";
import { measure } from "../e2e/measure.mjs";
import { startReceiver } from "./receiver.mjs";

const rates = envList("BENCH_RATES", "200,400").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const drainSeconds = Number(process.env.BENCH_DRAIN_SECONDS ?? 30);
const deliveryDrainSeconds = Number(process.env.BENCH_DELIVERY_DRAIN_SECONDS ?? 3600);
const phases = envList("BENCH_PHASES", "ab,outage");
const outageSeconds = Number(process.env.BENCH_OUTAGE_SECONDS ?? 600);
const outageRate = Number(process.env.BENCH_OUTAGE_RATE ?? Math.max(...rates));
const outageAfterSeconds = Number(process.env.BENCH_OUTAGE_AFTER_SECONDS ?? 60);
const outageMode = process.env.BENCH_OUTAGE_MODE ?? "503";
const outageRuns = Number(process.env.BENCH_OUTAGE_RUNS ?? 1);
if (!["503", "closed"].includes(outageMode)) throw new Error("BENCH_OUTAGE_MODE is 503 or closed");
/** The outage is compared with `without` at its rate: measured in the ab phase whatever BENCH_RATES says. */
const abRates = phases.includes("outage") && !rates.includes(outageRate) ? [...rates, outageRate] : rates;
const SVC_ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: "true" };
/** After every indexed document's event arrived, how long to keep listening for duplicates. */
const DUPLICATE_GRACE_MS = 5_000;

/** Registers the receiver as svc's one endpoint, for every event type, through REST with the admin key. */
async function register(target, receiver) {
  const response = await fetch(`http://127.0.0.1:${target.port}/api/manage/admin/webhook`, {
    method: "POST",
    headers: { ...target.headers, "content-type": "application/json" },
    body: JSON.stringify({ url: receiver.url }),
  });
  if (response.status !== 200 && response.status !== 201) throw new Error(`registering the endpoint: ${response.status} ${await response.text()}`);
  receiver.secret = (await response.json()).secret;
}

/**
 * Where svc's delivery time goes, from its own rows: event time → fanned out (the delivery row's
 * creation: the outbox's horizon and the fan-out's tick) and fanned out → delivered (claim, POST,
 * record), p50 / p99 in ms over the run's delivered `document.indexed` deliveries.
 */
async function deliveryStages(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`
      SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - e.occurred_at) * 1000) AS fanned,
        percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.finished_at - d.created_at) * 1000) AS sent
      FROM webhook_delivery d JOIN svc_event e ON e.id = d.event_id
      WHERE d.status = 'delivered' AND d.event_type = 'document.indexed'`);
    return rows[0];
  } finally {
    await client.end();
  }
}

/** Waits until every indexed document's `document.indexed` arrived (or the delivery drain ends), then a grace for duplicates. */
async function awaitDeliveries(receiver, documents, target) {
  const indexed = () => [...documents].filter(([, timing]) => timing.indexed !== undefined);
  const complete = await waitUntil(
    "every indexed document's event",
    async () => indexed().every(([id]) => receiver.indexed.has(id)),
    deliveryDrainSeconds * 1000,
  ).catch(() => false);
  await new Promise((resolve) => setTimeout(resolve, DUPLICATE_GRACE_MS));
  return { complete, waitedUntil: performance.now(), stages: await deliveryStages(target.url) };
}

/** One measurement of svc, with the receiver registered unless `endpoint` is false; `outage` ("down" or "control") marks the outage's window. */
async function measureSvc({ endpoint, rate, run, loadSeconds, outage }) {
  const receiver = endpoint ? await startReceiver() : undefined;
  const window = {};
  try {
    const result = await measure("svc", rate, run, {
      seconds: loadSeconds,
      warmupSeconds,
      drainSeconds,
      env: SVC_ENV,
      label: `webhooks-${endpoint ? "with" : "without"}`,
      prepare: endpoint ? (target) => register(target, receiver) : undefined,
      // `control` marks the same window with the receiver up all along: what the outage is compared with.
      beforeLoad: outage
        ? () => {
            const toggle = (change) => (outage === "down" ? change() : Promise.resolve());
            setTimeout(() => void toggle(() => receiver.down(outageMode)).then(() => (window.down = performance.now())), warmupSeconds * 1000);
            setTimeout(() => void toggle(() => receiver.up()).then(() => (window.up = performance.now())), (warmupSeconds + outageSeconds) * 1000);
          }
        : undefined,
      settle: endpoint ? ({ documents, target }) => awaitDeliveries(receiver, documents, target) : undefined,
    });
    return { ...result, endpoint, receiver, window };
  } finally {
    await receiver?.close();
  }
}

const sorted = (values) => values.sort((a, b) => a - b);
/** The largest of many values (Math.max(...values) overflows the stack past ~100,000 of them). */
const largest = (values) => values.reduce((most, value) => Math.max(most, value), -Infinity);
const smallest = (values) => values.reduce((least, value) => Math.min(least, value), Infinity);
const ms = (value) => (value === undefined ? "-" : Number.isFinite(value) ? `${value.toFixed(0)} ms` : "never");
const s = (milliseconds) => `${(milliseconds / 1000).toFixed(1)} s`;
const load = (averages) => averages.map((value) => value.toFixed(1)).join(" ");

/** What the receiver got of one `with` measurement, for the documents `counted` (id → timing). */
function deliveries(result, counted) {
  const { receiver } = result;
  const indexed = counted.filter(([, timing]) => timing.indexed !== undefined);
  const delays = sorted(counted.filter(([, timing]) => timing.accepted !== undefined).map(([id, timing]) => (receiver.indexed.get(id)?.first ?? Infinity) - timing.accepted));
  const all = [...result.documents].filter(([, timing]) => timing.indexed !== undefined);
  const received = all.map(([id]) => receiver.indexed.get(id)).filter(Boolean);
  const sinceEvent = sorted(counted.map(([id]) => receiver.indexed.get(id)?.sinceEvent).filter((value) => value !== undefined));
  const sent = received.reduce((sum, { deliveries: count }) => sum + count, 0);
  const duplicateDeliveries = [...receiver.events.values()].reduce((sum, count) => sum + count - 1, 0);
  return {
    counted: indexed.length,
    p50: percentile(delays, 50),
    p95: percentile(delays, 95),
    p99: percentile(delays, 99),
    eventP50: percentile(sinceEvent, 50),
    eventP99: percentile(sinceEvent, 99),
    perDocument: sent / Math.max(1, received.length),
    duplicateDeliveries,
    lost: all.length - received.length,
    badSignatures: receiver.badSignatures,
    refused: receiver.refused,
    lastArrival: largest(received.map(({ first }) => first)),
  };
}

/** A delivery stage's p50 / p99 from svc's rows (deliveryStages). */
function stages(result, stage) {
  const [p50, p99] = result.settled?.stages?.[stage] ?? [];
  return `p50 ${ms(p50)} p99 ${ms(p99)}`;
}

function describe(result) {
  const base =
    `run ${result.run} ${result.endpoint ? "with" : "without"} @ ${result.rate}/s: answers ${JSON.stringify(result.answers)}; ` +
    `accepted ${result.acceptedPerSecond.toFixed(1)}/s, indexed ${result.indexedPerSecond.toFixed(1)}/s, ${result.neverIndexed} not indexed ${drainSeconds} s after the load; ` +
    `accept→indexed p50 ${ms(result.indexedP50)} p99 ${ms(result.indexedP99)}`;
  if (!result.endpoint) return base;
  const steadyFrom = smallest([...result.documents.values()].map((t) => t.due)) + warmupSeconds * 1000;
  const d = deliveries(result, [...result.documents].filter(([, timing]) => timing.due >= steadyFrom));
  return (
    `${base}; accept→delivered p50 ${ms(d.p50)} p95 ${ms(d.p95)} p99 ${ms(d.p99)} (event time→delivered p50 ${ms(d.eventP50)} p99 ${ms(d.eventP99)}: svc's delivery path alone; of it, event→fanned out ${stages(result, "fanned")}, fanned out→delivered ${stages(result, "sent")}); deliveries per document ${d.perDocument.toFixed(3)}, ` +
    `${d.duplicateDeliveries} duplicate deliveries (same event id), ${d.lost} indexed documents never delivered${result.settled.complete ? "" : ` (gave up after ${deliveryDrainSeconds} s)`}, ` +
    `${d.badSignatures} bad signatures; events received ${JSON.stringify(result.receiver.byType)}`
  );
}

console.log(`machine: ${describeMachine()}; load average (1/5/15 min) at start: ${load(os.loadavg())}`);
console.log(
  `svc started as \`svc start\` with SVC_WEBHOOK_ALLOW_PRIVATE=true in every set-up (the receiver is on loopback); ` +
    `~${smallDocumentBody("e2e-0-0-0", 0).length} B documents, open loop; steady state from ${warmupSeconds} s`,
);
const abResults = [];
if (phases.includes("ab")) {
  console.log(`\nab: ${seconds} s per rate and set-up, ${runs} runs, alternating which goes first`);
  for (let run = 1; run <= runs; run += 1) {
    for (const rate of abRates) {
      const order = run % 2 === 1 ? [false, true] : [true, false];
      for (const endpoint of order) {
        const result = await measureSvc({ endpoint, rate, run, loadSeconds: seconds });
        console.log(describe(result));
        // The documents and the receiver's records are not needed past the line above and the medians.
        const steadyFrom = smallest([...result.documents.values()].map((t) => t.due)) + warmupSeconds * 1000;
        const delivered = endpoint ? deliveries(result, [...result.documents].filter(([, timing]) => timing.due >= steadyFrom)) : undefined;
        abResults.push({ rate, endpoint, indexed: result.indexedPerSecond, delivered });
      }
    }
  }
  console.log("\nmedians over runs:");
  console.log("| rate | indexed/s without | indexed/s with | with / without | accept→delivered p50 / p95 / p99 | deliveries per document | lost |");
  console.log("|---|---|---|---|---|---|---|");
  for (const rate of abRates) {
    const of = (endpoint) => abResults.filter((r) => r.rate === rate && r.endpoint === endpoint);
    const without = median(of(false).map((r) => r.indexed));
    const withEndpoint = median(of(true).map((r) => r.indexed));
    const med = (field) => median(of(true).map((r) => r.delivered[field]));
    console.log(
      `| ${rate} | ${without.toFixed(1)} (${of(false).map((r) => r.indexed.toFixed(0)).join(", ")}) | ${withEndpoint.toFixed(1)} (${of(true).map((r) => r.indexed.toFixed(0)).join(", ")}) | ` +
        `${(withEndpoint / without).toFixed(3)} | ${ms(med("p50"))} / ${ms(med("p95"))} / ${ms(med("p99"))} | ${med("perDocument").toFixed(3)} | ${of(true).reduce((sum, r) => sum + r.delivered.lost, 0)} |`,
    );
  }
}

if (phases.includes("outage")) {
  const loadSeconds = warmupSeconds + outageSeconds + outageAfterSeconds;
  console.log(
    `\noutage: ${outageRate}/s for ${loadSeconds} s; the receiver ${outageMode === "503" ? "answers 503" : "is closed"} from ${warmupSeconds} s for ${outageSeconds} s, then recovers`,
  );
  const without = abResults.filter((r) => r.rate === outageRate && !r.endpoint).map((r) => r.indexed);
  /** Indexed/s in the window, and accept→indexed of the documents accepted in it. */
  const inWindow = (result) => {
    const { down, up } = result.window;
    const all = [...result.documents];
    const acceptedInIt = all.filter(([, t]) => t.accepted >= down && t.accepted <= up);
    return {
      all,
      down,
      up,
      indexedPerSecond: all.filter(([, t]) => t.indexed >= down && t.indexed <= up).length / ((up - down) / 1000),
      acceptedPerSecond: acceptedInIt.length / ((up - down) / 1000),
      delays: sorted(acceptedInIt.map(([, t]) => (t.indexed ?? Infinity) - t.accepted)),
    };
  };
  const figures = (w) => `accepted ${w.acceptedPerSecond.toFixed(1)}/s, indexed ${w.indexedPerSecond.toFixed(1)}/s, accept→indexed p50 ${ms(percentile(w.delays, 50))} p99 ${ms(percentile(w.delays, 99))}`;
  for (let run = 1; run <= outageRuns; run += 1) {
    // The receiver up all along, same rate and length: indexing at this rate for this long, the outage's
    // yardstick. Which goes first alternates from run to run (BENCH_OUTAGE_FIRST: the outage in run 1).
    const runControl = async () => {
      const control = inWindow(await measureSvc({ endpoint: true, rate: outageRate, run, loadSeconds, outage: "control" }));
      console.log(`control run ${run} (receiver up), in the same window: ${figures(control)}`);
      return control;
    };
    const outageFirst = (run % 2 === 1) === Boolean(process.env.BENCH_OUTAGE_FIRST);
    const early = outageFirst ? undefined : await runControl();
    const result = await measureSvc({ endpoint: true, rate: outageRate, run, loadSeconds, outage: "down" });
    const control = early ?? (await runControl());
    const w = inWindow(result);
    const { all, up } = w;
    const d = deliveries(result, all);
    const beforeRecovery = all.filter(([, t]) => t.indexed !== undefined && t.indexed < up);
    const backlogDrained = largest(beforeRecovery.map(([id]) => result.receiver.indexed.get(id)?.first ?? Infinity));
    console.log(describe(result));
    console.log(
      `outage run ${run}: during the outage ${figures(w)}; indexed/s against the control ${(w.indexedPerSecond / control.indexedPerSecond).toFixed(3)}, ` +
        `against without at ${outageRate}/s (ab) ${without.length ? `${median(without).toFixed(1)} (ratio ${(w.indexedPerSecond / median(without)).toFixed(3)})` : "- (no ab phase)"}; ` +
        `${outageMode === "503" ? `tries answered 503: ${d.refused}` : "tries refused at connect (not counted)"}; ` +
        `after recovery: ${d.lost === 0 ? "every indexed document's event delivered (none lost)" : `${d.lost} indexed documents never delivered within ${deliveryDrainSeconds} s`}, ` +
        `${d.duplicateDeliveries} duplicate deliveries, deliveries per document ${d.perDocument.toFixed(3)}; ` +
        `backlog (documents indexed before recovery) drained ${s(backlogDrained - up)} after recovery; last event arrived ${s(d.lastArrival - up)} after recovery ` +
        `(the load ended ${s(outageAfterSeconds * 1000)} after it); ${d.badSignatures} bad signatures`,
    );
  }
}
console.log(`load average at the end: ${load(os.loadavg())}`);
