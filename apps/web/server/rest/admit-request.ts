import { monitorEventLoopDelay } from "node:perf_hooks";
import { getIndexingQueueDepth } from "@svc/core";
import type { RestEndpoint } from "@svc/schema";
import { webEnv } from "../env";
import { getServices } from "../services";
import { AdaptiveLimit } from "./adaptive-limit";
import { detailResponse } from "./error-response";

// Admission control (decisions.md "Limits and overload"): past a bound, ingestion is refused at once
// with 429 and Retry-After instead of queueing in this process without limit (unbounded latency and
// memory, issue 12). Which endpoints shed load is data: those whose contract entry declares a 429.
// The production server (server.ts) admits at its node:http front, before a web Request is built or
// the body read; the Next.js catch-all route (`next dev`) admits in the dispatcher instead.

/** Seconds a refused client waits: in-flight requests clear in well under a second. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
/** A deep indexing queue drains at the workers' pace, so clients back off longer. */
const QUEUE_RETRY_AFTER_SECONDS = 5;
/** How long one reading of the queue depth serves every request. */
const QUEUE_DEPTH_TTL_MS = 1_000;
/** The event-loop delay monitor's sampling step, and how often its reading (and the adaptive limit) is taken and restarted. */
const LOOP_DELAY_RESOLUTION_MS = 10;
const MONITOR_WINDOW_MS = 500;
/** The adaptive limit never goes below this many (or SVC_MAX_IN_FLIGHT, when that is lower). */
const ADAPTIVE_LIMIT_FLOOR = 4;

export interface Refusal {
  status: 429;
  detail: string;
  retryAfterSeconds: number;
}

let inFlight = 0;
let admittedAtFront = false;
let queueDepth = { value: 0, readAt: 0 };
let queueDepthReading: Promise<void> | undefined;
let loopDelayMs = 0;
let lastTickAt = performance.now();
let monitoring = false;
let frontLimit: AdaptiveLimit | undefined;

/** SVC_MAX_IN_FLIGHT, or by default four requests per database connection: enough to keep the pool busy. */
function maxInFlight(): number {
  const env = webEnv();
  return env.SVC_MAX_IN_FLIGHT ?? 4 * env.SVC_DB_POOL_SIZE;
}

/**
 * The front door's admission (server.ts): counts one raw REST request as in flight, or refuses it when
 * its endpoint sheds load. `release` must run once the response is done (or the socket gone). Here
 * the in-flight limit adapts to the latency of the admitted load-shedding requests
 * (SVC_ADMISSION_TARGET_MS, adaptive-limit.ts), up to SVC_MAX_IN_FLIGHT.
 */
export function admitIncomingRequest(entry: RestEndpoint | undefined): { refusal: Refusal } | { release: () => void } {
  admittedAtFront = true;
  startMonitors();
  const limit = (frontLimit ??= new AdaptiveLimit(maxInFlight(), Math.min(maxInFlight(), ADAPTIVE_LIMIT_FLOOR), webEnv().SVC_ADMISSION_TARGET_MS));
  const sheds = entry !== undefined && shedsLoad(entry);
  const refusal = sheds ? refusalFor(entry, limit.value) : undefined;
  if (sheds && inFlight + 1 >= limit.value) limit.noteReached();
  if (refusal) return { refusal };
  inFlight += 1;
  const admittedAt = performance.now();
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      // The limit follows ingestion's latency, the load it was tuned for: a search's own time (up to
      // its deadline) says little about how loaded the database is.
      if (sheds && entry?.tag === "ingestion") limit.record(performance.now() - admittedAt);
    },
  };
}

/**
 * Runs a REST request counted as in flight, unless the front door already admitted it. A load-shedding
 * endpoint is first refused with 429 when this process already has SVC_MAX_IN_FLIGHT requests in
 * flight, its event loop lags past SVC_MAX_EVENT_LOOP_DELAY_MS, or the indexing queue holds more than
 * SVC_MAX_QUEUE_DEPTH jobs; that answer needs no database call (the depth is read in the background).
 */
export async function admitRequest(entry: RestEndpoint, run: () => Promise<Response>): Promise<Response> {
  if (admittedAtFront) return run();
  startMonitors();
  const refusal = shedsLoad(entry) ? refusalFor(entry, maxInFlight()) : undefined;
  if (refusal) return detailResponse(refusal.status, refusal.detail, { "Retry-After": String(refusal.retryAfterSeconds) });
  inFlight += 1;
  try {
    return await run();
  } finally {
    inFlight -= 1;
  }
}

/** Whether the endpoint sheds load (ingestion and search): its contract entry declares a 429. */
function shedsLoad(entry: RestEndpoint): boolean {
  return 429 in entry.responses;
}

/**
 * Why a request of a load-shedding endpoint is refused now, if a bound is passed. The indexing
 * queue's bound is ingestion's alone: a search adds nothing to that queue.
 */
function refusalFor(entry: RestEndpoint, inFlightLimit: number): Refusal | undefined {
  const env = webEnv();
  if (inFlight >= inFlightLimit) {
    return { status: 429, detail: "Too many requests in flight; try again later", retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS };
  }
  // A lagging event loop means requests already wait unparsed in front of this check: taking more
  // would only lengthen that wait for everyone. With nothing in flight the lag is not this process's
  // requests (a starved machine, a one-off stall), and refusing would not relieve it. The window's
  // reading comes too late for the requests read right after a stall (they are parsed before the
  // timers run again), so the time since the loop last ticked counts too: those requests waited it.
  const lagMs = Math.max(loopDelayMs, performance.now() - lastTickAt - LOOP_DELAY_RESOLUTION_MS);
  if (env.SVC_MAX_EVENT_LOOP_DELAY_MS > 0 && inFlight > 0 && lagMs > env.SVC_MAX_EVENT_LOOP_DELAY_MS) {
    return { status: 429, detail: "The server is busy; try again later", retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS };
  }
  if (entry.tag === "ingestion" && currentQueueDepth() > env.SVC_MAX_QUEUE_DEPTH) {
    return { status: 429, detail: "The indexing queue is full; try again later", retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS };
  }
  return undefined;
}

/**
 * Stamps `lastTickAt` at every step, and every window ends the adaptive limit's window and keeps
 * `loopDelayMs` at the 99th percentile of the window's delays: a mean would hide the long stalls (a
 * starved or saturated process) among the many short samples, and a request arriving during a stall
 * waits for all of it. The samples include the monitor's own step, which is not lag.
 */
function startMonitors(): void {
  if (monitoring) return;
  monitoring = true;
  const histogram = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  histogram.enable();
  lastTickAt = performance.now();
  setInterval(() => (lastTickAt = performance.now()), LOOP_DELAY_RESOLUTION_MS).unref();
  setInterval(() => {
    const p99Ms = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    loopDelayMs = Math.max(0, p99Ms - LOOP_DELAY_RESOLUTION_MS);
    histogram.reset();
    frontLimit?.adjust();
  }, MONITOR_WINDOW_MS).unref();
}

/** The last reading; a stale one starts one background read (never one per request). */
function currentQueueDepth(): number {
  if (Date.now() - queueDepth.readAt > QUEUE_DEPTH_TTL_MS) queueDepthReading ??= readQueueDepth();
  return queueDepth.value;
}

async function readQueueDepth(): Promise<void> {
  try {
    const { boss } = await getServices();
    queueDepth = { value: await getIndexingQueueDepth({ boss }), readAt: Date.now() };
  } catch {
    // Database away: ingestion answers 503 on its own; keep the last reading and try again later.
    queueDepth = { ...queueDepth, readAt: Date.now() };
  } finally {
    queueDepthReading = undefined;
  }
}
