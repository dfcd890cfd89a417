import { registerResidentMemory } from "@svc/core";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { SearchLatencyWindow } from "./search-latency";

/** Request durations: most answers take milliseconds, a whole-list stream or a slow search seconds. */
const REQUEST_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface WebMetrics {
  registry: Registry;
  requests: Counter<"method" | "route" | "status">;
  requestSeconds: Histogram<"method" | "route" | "status">;
  /** Failed key checks and sign-ins, and the requests refused because their address failed too often. */
  credentialFailures: Counter<"kind">;
  credentialRefusals: Counter<"kind">;
  /** The searches of the last 5 minutes: the health page reads it, the gauges below export it. */
  searchLatency: SearchLatencyWindow;
}

// One registry per process (kept on globalThis, so that dev-mode module reloads do not register the
// same metric twice): the web's process metrics and its requests by route pattern and status.
const holder = globalThis as typeof globalThis & { svcWebMetrics?: WebMetrics };

export function webMetrics(): WebMetrics {
  holder.svcWebMetrics ??= createWebMetrics();
  return holder.svcWebMetrics;
}

function createWebMetrics(): WebMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerResidentMemory(registry);
  const labelNames = ["method", "route", "status"] as const;
  const searchLatency = new SearchLatencyWindow();
  // Read at each scrape from the same window the health page reads; no series while it is empty.
  new Gauge({
    name: "svc_search_latency_seconds",
    help: "Search duration percentiles (quantile 0.5, 0.95) over the searches this web process ran (REST and console) in the last 300 s",
    labelNames: ["quantile"],
    registers: [registry],
    collect() {
      this.reset();
      const { p50Ms, p95Ms } = searchLatency.read();
      if (p50Ms !== null) this.set({ quantile: "0.5" }, p50Ms / 1000);
      if (p95Ms !== null) this.set({ quantile: "0.95" }, p95Ms / 1000);
    },
  });
  new Gauge({
    name: "svc_search_window_searches",
    help: "Searches this web process ran (REST and console) in the last 300 s, the window of svc_search_latency_seconds",
    registers: [registry],
    collect() {
      this.set(searchLatency.read().searches);
    },
  });
  return {
    searchLatency,
    registry,
    requests: new Counter({
      name: "svc_http_requests_total",
      help: "HTTP requests answered, by method, route pattern (the REST contract's path; `next` for the console's pages) and status",
      labelNames,
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by method, route pattern and status",
      labelNames,
      buckets: REQUEST_BUCKETS_SECONDS,
      registers: [registry],
    }),
    credentialFailures: new Counter({
      name: "svc_credential_failures_total",
      help: "Failed credential checks: `bearer` (a REST request whose key is unknown, revoked or malformed) or `sign_in` (the console)",
      labelNames: ["kind"],
      registers: [registry],
    }),
    credentialRefusals: new Counter({
      name: "svc_credential_throttled_total",
      help: "Requests refused with 429 because their client address failed too many credential checks within a minute, by `kind`",
      labelNames: ["kind"],
      registers: [registry],
    }),
  };
}
