import { registerResidentMemory, type GenerationMaintenance, type Logger, type ReceivedJob } from "@svc/core";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

// The worker's own metrics. It serves no HTTP: it publishes this registry (prom-client's JSON form)
// into its heartbeat row, and GET /api/metrics on the web serves it labelled by worker beside the
// web's own (ARCHITECTURE.md "Observability"), so one scrape target covers svc.

/** Indexing lag: seconds from the accepted upsert to the commit that made the document searchable. */
const LAG_BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
/** A job handler's run: one indexing batch, a pair deletion, a rebuild (minutes). */
const JOB_BUCKETS_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
/** One merge or compaction of a generation's table: its cost grows with the table (the FTS index is rewritten whole). */
const MERGE_BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/**
 * How old the cache gauge's reading may be. LanceDB sums its caches' bytes by walking them (~20 ms of
 * CPU a reading at the worker's 32 MiB bounds, measured with --cpu-prof), and the registry is read
 * each time a job's metrics are published (up to once a second under load).
 */
const CACHE_BYTES_MAX_AGE_MS = 15_000;

export type JobOutcome = "indexed" | "skipped" | "completed" | "failed";

export interface WorkerMetrics {
  registry: Registry;
  /** Logs one job's outcome (one JSON line, like a request's) and counts it. */
  recordJob(entry: { queue: string; job: ReceivedJob<unknown>; outcome: JobOutcome; seconds: number; error?: unknown; fields?: Record<string, unknown> }): void;
  observeIndexingLag(seconds: number): void;
  /** What one run of the search index's maintenance found and did. */
  recordIndexMaintenance(generations: GenerationMaintenance[]): void;
}

export function createWorkerMetrics(logger: Logger, { readIndexCacheBytes }: { readIndexCacheBytes: () => Promise<number> }): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerResidentMemory(registry);
  let cacheBytesReadAt = -Infinity;
  new Gauge({
    name: "svc_search_index_cache_bytes",
    help: "Bytes held by the search index's caches (LanceDB's index and metadata caches: native memory, outside the V8 heap)",
    registers: [registry],
    async collect() {
      if (Date.now() - cacheBytesReadAt < CACHE_BYTES_MAX_AGE_MS) return;
      cacheBytesReadAt = Date.now();
      this.set(await readIndexCacheBytes());
    },
  });
  const jobs = new Counter({
    name: "svc_jobs_total",
    help: "Jobs this worker handled, by queue and outcome (an indexing job: indexed, skipped as superseded or done, failed)",
    labelNames: ["queue", "outcome"],
    registers: [registry],
  });
  const jobSeconds = new Histogram({
    name: "svc_job_duration_seconds",
    help: "Duration of the handler run that handled each job (an indexing job's whole batch), by queue and outcome",
    labelNames: ["queue", "outcome"],
    buckets: JOB_BUCKETS_SECONDS,
    registers: [registry],
  });
  const lag = new Histogram({
    name: "svc_indexing_lag_seconds",
    help: "Seconds from a document upsert's acceptance to the commit that made that version searchable",
    buckets: LAG_BUCKETS_SECONDS,
    registers: [registry],
  });
  const unmerged = new Gauge({
    name: "svc_search_index_unmerged_rows",
    help: "Rows of a generation's search index table not yet merged into its FTS index (each search scans them), when this worker's last maintenance run ended",
    labelNames: ["generation_id"],
    registers: [registry],
  });
  const mergeSeconds = new Histogram({
    name: "svc_search_index_merge_seconds",
    help: "Duration of each maintenance of a generation's search index table by this worker: a merge of new rows into its FTS index, a compaction (with a merge and pruning), or, for a generation being built, its key B-trees brought up to date (keys)",
    labelNames: ["action"],
    buckets: MERGE_BUCKETS_SECONDS,
    registers: [registry],
  });
  return {
    registry,
    recordJob: ({ queue, job, outcome, seconds, error, fields }) => {
      jobs.inc({ queue, outcome });
      jobSeconds.observe({ queue, outcome }, seconds);
      const line = { queue, job_id: job.id, retry_count: job.retryCount, outcome, duration_ms: Math.round(seconds * 1000), ...fields };
      // The error's message only: a stack or a cause could carry a document's text.
      if (outcome === "failed") logger.warn({ ...line, error: error instanceof Error ? error.message : String(error) }, "job failed");
      else logger.info(line, "job done");
    },
    observeIndexingLag: (seconds) => lag.observe(Math.max(0, seconds)),
    recordIndexMaintenance: (generations) => {
      unmerged.reset();
      for (const { generationId, unmergedRows, action, seconds } of generations) {
        unmerged.set({ generation_id: String(generationId) }, unmergedRows);
        if (action !== null && seconds !== null) mergeSeconds.observe({ action }, seconds);
      }
    },
  };
}
