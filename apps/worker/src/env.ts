import { LOG_LEVELS } from "@svc/schema";
import type { SearchIndexCacheBytes } from "@svc/search-index";
import { z } from "zod";

const WorkerEnvSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL must be set (the start command sets it for the embedded database)"),
  SVC_WORKER_BATCH_SIZE: z.coerce.number().int().positive().default(50),
  SVC_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  // How often the worker stamps its heartbeat row (readiness needs one within 60 s).
  SVC_WORKER_HEARTBEAT_SECONDS: z.coerce.number().positive().max(30).default(15),
  // An index attempt of pushed documents closes when nothing of its pair is left to index; a document of
  // the pair taken up within this many seconds reopens it (0: never), so a steady push stream reads as
  // one attempt (docs/decisions.md).
  SVC_ATTEMPT_QUIET_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  // How long the event outbox keeps events (the stream's Last-Event-ID resume reaches this far back;
  // docs/decisions.md "Events"); the worker purges older ones hourly.
  SVC_EVENT_RETENTION_HOURS: z.coerce.number().int().min(1).max(720).default(24),
  // Webhooks (docs/decisions.md "Webhooks"): endpoints may be loopback or private addresses (tests, a
  // receiver on the same network); one try's bound; an endpoint's pending deliveries past which a
  // document's are coalesced (the newest kept); how long ended deliveries stay listed.
  SVC_WEBHOOK_ALLOW_PRIVATE: z.stringbool().default(false),
  SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  SVC_WEBHOOK_QUEUE_BOUND: z.coerce.number().int().positive().default(1_000),
  SVC_WEBHOOK_DELIVERY_RETENTION_HOURS: z.coerce.number().int().min(1).max(8_760).default(168),
  SVC_SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(30_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  // The search index (LanceDB): a directory, or an object-store URI (s3://…, gs://…, az://…) that every
  // worker and web process shares. `svc start` passes its own (beside the embedded database's data).
  SVC_INDEX_DIR: z.string().min(1).default(".data/index"),
  // Whether this worker maintains the search index itself (merges, compactions, key refreshes): a worker
  // started alone does; `svc start` runs the maintenance process beside its worker instead and sets it
  // false (docs/decisions.md "The search index").
  SVC_WORKER_MAINTAINS_INDEX: z.stringbool().default(true),
  // How often the index maintenance merges newly written rows into the index (optimize); a full compaction and
  // pruning of old table versions runs every SVC_INDEX_COMPACT_SECONDS.
  SVC_INDEX_OPTIMIZE_SECONDS: z.coerce.number().positive().default(2),
  SVC_INDEX_COMPACT_SECONDS: z.coerce.number().positive().default(600),
  // Rows waiting to be merged that a worker merges even while no search reads the table, or 5 % of
  // the table when that is more (each search scans them meanwhile, ~10-20 µs a row); a table searched
  // in the last minute is merged as rows come (MergeSchedule).
  SVC_INDEX_MERGE_ROWS: z.coerce.number().int().positive().default(10_000),
  // Bounds of LanceDB's caches in the worker (native memory, outside V8's heap): index pages and
  // table metadata (manifests, file footers). LanceDB's own (6 GiB and 1 GiB) let a writer's RSS grow
  // by what each commit and merge caches, for as long as it runs (bench/RESULTS.md, issue 17 §2).
  SVC_WORKER_INDEX_CACHE_MB: z.coerce.number().int().positive().default(32),
  SVC_WORKER_METADATA_CACHE_MB: z.coerce.number().int().positive().default(32),
});

export type WorkerEnv = z.infer<typeof WorkerEnvSchema>;

export function workerEnv(): WorkerEnv {
  return WorkerEnvSchema.parse(process.env);
}

const MIB = 1024 * 1024;

/** The worker's bounds for LanceDB's caches. */
export function indexCacheBytes(env: WorkerEnv): SearchIndexCacheBytes {
  return { index: env.SVC_WORKER_INDEX_CACHE_MB * MIB, metadata: env.SVC_WORKER_METADATA_CACHE_MB * MIB };
}
