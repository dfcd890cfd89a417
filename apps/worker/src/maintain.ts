import { randomUUID } from "node:crypto";
import os from "node:os";
import { advisoryTableGates, createLogger, searchIndexAt, type WorkerIdentity } from "@svc/core";
import { createDb } from "@svc/db";
import { indexCacheBytes, workerEnv } from "./env";
import { startHeartbeat } from "./heartbeat";
import { startIndexMaintenance } from "./index-maintenance";
import { exitOnStartFailure } from "./exit-on-start-failure";
import { createWorkerMetrics } from "./worker-metrics";

/**
 * The index maintenance process (`svc start maintenance`; `svc start` runs one beside its worker): it
 * merges, compacts and refreshes the search index's tables on the worker's schedule, so that a merge,
 * which rebuilds a table's whole FTS index, never stalls the commits of the worker's indexing
 * batches (docs/decisions.md "The search index"). Its compactions and the workers' updating writes
 * keep apart through PostgreSQL advisory locks (advisoryTableGates). `svc start` runs it at a lower
 * CPU priority than the worker (SVC_INDEX_MAINTENANCE_NICE). Its metrics (merges, unmerged rows,
 * memory) reach GET /api/metrics through a heartbeat row of its own, labelled component="maintenance".
 */
async function main(): Promise<void> {
  const env = workerEnv();
  let stop: ((signal: string) => void) | null = null;
  let earlySignal: string | null = null;
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => (stop ? stop(signal) : (earlySignal ??= signal)));
  const logger = createLogger({ name: "maintenance", level: env.LOG_LEVEL });
  const db = createDb({ databaseUrl: env.DATABASE_URL, poolSize: 2, applicationName: "svc-maintenance" });
  // One table maintained at a time: its compaction's lock, plus a key refresh's, plus one spare.
  const gatesDb = createDb({ databaseUrl: env.DATABASE_URL, poolSize: 3, applicationName: "svc-maintenance-index-gates" });
  const index = searchIndexAt(env.SVC_INDEX_DIR, { cacheBytes: indexCacheBytes(env), gates: advisoryTableGates(gatesDb, env.SVC_INDEX_DIR) });
  const metrics = createWorkerMetrics(logger, { readIndexCacheBytes: () => index.cachedBytes() });
  const self: WorkerIdentity = { workerId: `maintenance-${randomUUID()}`, hostname: os.hostname(), pid: process.pid };
  const heartbeat = await startHeartbeat({ db, self, role: "maintenance", seconds: env.SVC_WORKER_HEARTBEAT_SECONDS, metrics, logger });
  const maintenance = startIndexMaintenance({ db, index, env, metrics, onMerged: () => heartbeat.publishSoon(), logger });
  // Its timers are unref'd (in a worker, the job queue keeps the process alive); here nothing else
  // would once the database drops its connections, and the process would end with 0 in the middle of
  // a database restart. This one keeps it until it is told to stop.
  const keepAlive = setInterval(() => undefined, 3_600_000);
  logger.info({ index_dir: env.SVC_INDEX_DIR, every_seconds: env.SVC_INDEX_OPTIMIZE_SECONDS }, "maintaining the search index");

  stop = (signal) => {
    stop = () => undefined;
    logger.info({ signal }, "finishing the maintenance run in flight");
    // A merge or compaction in flight commits or is dropped whole (LanceDB commits atomically), so
    // past the grace period the process just ends.
    setTimeout(() => {
      logger.error({ grace_ms: env.SVC_SHUTDOWN_GRACE_MS }, "shutdown overran its grace period; exiting");
      logger.flush();
      process.exit(1);
    }, env.SVC_SHUTDOWN_GRACE_MS).unref();
    void (async () => {
      clearInterval(keepAlive);
      await maintenance.stop();
      await heartbeat.stop();
      await db.$disconnect();
      await gatesDb.$disconnect();
      logger.info("stopped");
      logger.flush();
      process.exit(0);
    })();
  };
  if (earlySignal !== null) stop(earlySignal);
  // Under `svc start` the IPC channel to the supervisor closes when it dies (even by kill -9).
  process.once("disconnect", () => stop?.("supervisor gone"));
  if (process.send && !process.connected) stop("supervisor gone");
}

main().catch(exitOnStartFailure("maintenance"));
