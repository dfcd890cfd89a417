import { monitorEventLoopDelay } from "node:perf_hooks";
import { getIndexingQueueDepth } from "@svc/core";
import type { RestEndpoint } from "@svc/schema";
import { webEnv } from "../env";
import { getServices } from "../services";
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
/** The event-loop delay monitor's sampling step, and how often its reading is taken and restarted. */
const LOOP_DELAY_RESOLUTION_MS = 10;
const LOOP_DELAY_WINDOW_MS = 500;

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
let loopDelayMonitoring = false;

/**
 * The front door's admission (server.ts): counts one raw REST request as in flight, or refuses it when
 * its endpoint sheds load. `release` must run once the response is done (or the socket gone).
 */
export function admitIncomingRequest(entry: RestEndpoint | undefined): { refusal: Refusal } | { release: () => void } {
  admittedAtFront = true;
  startLoopDelayMonitor();
  const refusal = entry ? refusalFor(entry) : undefined;
  if (refusal) return { refusal };
  inFlight += 1;
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      inFlight -= 1;
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
  startLoopDelayMonitor();
  const refusal = refusalFor(entry);
  if (refusal) return detailResponse(refusal.status, refusal.detail, { "Retry-After": String(refusal.retryAfterSeconds) });
  inFlight += 1;
  try {
    return await run();
  } finally {
    inFlight -= 1;
  }
}

/** Why this request is refused now, if its endpoint sheds load and a bound is passed. */
function refusalFor(entry: RestEndpoint): Refusal | undefined {
  if (!(429 in entry.responses)) return undefined;
  const env = webEnv();
  if (inFlight >= env.SVC_MAX_IN_FLIGHT) {
    return { status: 429, detail: "Too many requests in flight; try again later", retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS };
  }
  // A lagging event loop means requests already wait unparsed in front of this check: taking more
  // would only lengthen that wait for everyone. With nothing in flight the lag is not this process's
  // requests (a starved machine, a one-off stall), and refusing would not relieve it.
  if (env.SVC_MAX_EVENT_LOOP_DELAY_MS > 0 && inFlight > 0 && loopDelayMs > env.SVC_MAX_EVENT_LOOP_DELAY_MS) {
    return { status: 429, detail: "The server is busy; try again later", retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS };
  }
  if (currentQueueDepth() > env.SVC_MAX_QUEUE_DEPTH) {
    return { status: 429, detail: "The indexing queue is full; try again later", retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS };
  }
  return undefined;
}

/**
 * Keeps `loopDelayMs` at the 99th percentile of the last window's delays: a mean would hide the long
 * stalls (a starved or saturated process) among the many short samples, and a request arriving during
 * a stall waits for all of it. The samples include the monitor's own step, which is not lag.
 */
function startLoopDelayMonitor(): void {
  if (loopDelayMonitoring) return;
  loopDelayMonitoring = true;
  const histogram = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  histogram.enable();
  setInterval(() => {
    const p99Ms = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    loopDelayMs = Math.max(0, p99Ms - LOOP_DELAY_RESOLUTION_MS);
    histogram.reset();
  }, LOOP_DELAY_WINDOW_MS).unref();
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
