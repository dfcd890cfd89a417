import { getIndexingQueueDepth } from "@svc/core";
import type { RestEndpoint } from "@svc/schema";
import { webEnv } from "../env";
import { getServices } from "../services";
import { detailResponse } from "./error-response";

// Admission control (decisions.md "Limits and overload"): past a bound, ingestion is refused at once
// with 429 and Retry-After instead of queueing in this process without limit (unbounded latency and
// memory, issue 12). Which endpoints shed load is data: those whose contract entry declares a 429.

/** Seconds a refused client waits: in-flight requests clear in well under a second. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
/** A deep indexing queue drains at the workers' pace, so clients back off longer. */
const QUEUE_RETRY_AFTER_SECONDS = 5;
/** How long one reading of the queue depth serves every request. */
const QUEUE_DEPTH_TTL_MS = 1_000;

let inFlight = 0;
let queueDepth = { value: 0, readAt: 0 };
let queueDepthReading: Promise<void> | undefined;

/**
 * Runs a REST request counted as in flight. A load-shedding endpoint is first refused with 429 when
 * this process already has SVC_MAX_IN_FLIGHT requests in flight, or the indexing queue holds more than
 * SVC_MAX_QUEUE_DEPTH jobs; that answer needs no database call (the depth is read in the background).
 */
export async function admitRequest(entry: RestEndpoint, run: () => Promise<Response>): Promise<Response> {
  if (429 in entry.responses) {
    const env = webEnv();
    if (inFlight >= env.SVC_MAX_IN_FLIGHT) {
      return overloaded("Too many requests in flight; try again later", IN_FLIGHT_RETRY_AFTER_SECONDS);
    }
    if (currentQueueDepth() > env.SVC_MAX_QUEUE_DEPTH) {
      return overloaded("The indexing queue is full; try again later", QUEUE_RETRY_AFTER_SECONDS);
    }
  }
  inFlight += 1;
  try {
    return await run();
  } finally {
    inFlight -= 1;
  }
}

function overloaded(detail: string, retryAfterSeconds: number): Response {
  return detailResponse(429, detail, { "Retry-After": String(retryAfterSeconds) });
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
