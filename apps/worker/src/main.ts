import {
  advisoryTableGates,
  closeDrainedAttempts,
  purgeExpiredEvents,
  purgeFinishedWebhookDeliveries,
  createLogger,
  deleteCcPairJob,
  endOrphanedAttempts,
  ensureSearchIndex,
  indexDocumentJob,
  indexDocuments,
  installJobQueues,
  listLiveWorkers,
  purgeCcPair,
  purgeIndexGeneration,
  purgeIndexGenerationJob,
  rebuildIndexJob,
  runIndexRebuild,
  searchIndexAt,
  startJobQueue,
  startWebhookDelivery,
  workJobs,
  type AttemptWindow,
  type IndexedDocument,
  type Logger,
  type ReceivedJob,
  type WorkerIdentity,
} from "@svc/core";
import { randomUUID } from "node:crypto";
import os from "node:os";
import { createDb, whenDatabaseAnswers, type Db } from "@svc/db";
import { WORKER_HEARTBEAT_MAX_AGE_SECONDS } from "@svc/schema";
import { indexCacheBytes, workerEnv } from "./env";
import { startHeartbeat } from "./heartbeat";
import { startIndexMaintenance } from "./index-maintenance";
import { exitOnStartFailure } from "./exit-on-start-failure";
import { createWorkerMetrics } from "./worker-metrics";

/** How long an indexing batch waits for a database that stopped answering before it runs anyway. */
const STALLED_DATABASE_WAIT_MS = 30_000;
/** How often the attempt sweep looks for open attempts of drained pairs. */
const ATTEMPT_SWEEP_MS = 15_000;

/**
 * The worker process: wires the job catalog to core handlers. Several may run at once; pg-boss
 * hands each job to one of them.
 */
async function main(): Promise<void> {
  const env = workerEnv();
  // Signals are taken from the start: one that comes while the worker starts up stops it once it can.
  let onStopSignal: ((signal: string) => void) | null = null;
  let earlySignal: string | null = null;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => (onStopSignal ? onStopSignal(signal) : (earlySignal ??= signal)));
  }
  const logger = createLogger({ name: "worker", level: env.LOG_LEVEL });
  const attemptWindow: AttemptWindow = { quietSeconds: env.SVC_ATTEMPT_QUIET_SECONDS };
  // A connection for each indexing batch in flight, plus one each for a pair deletion, an index rebuild
  // and a generation purge, plus one spare.
  const db = createDb({ databaseUrl: env.DATABASE_URL, poolSize: env.SVC_WORKER_CONCURRENCY + 4, applicationName: "svc-worker" });
  // The index's gates hold a connection each while a write commits (advisoryTableGates): a pool of
  // their own, since an indexing batch writes the index while it holds one of db's.
  const gatesDb = createDb({ databaseUrl: env.DATABASE_URL, poolSize: env.SVC_WORKER_CONCURRENCY + 5, applicationName: "svc-worker-index-gates" });
  const index = searchIndexAt(env.SVC_INDEX_DIR, { cacheBytes: indexCacheBytes(env), gates: advisoryTableGates(gatesDb, env.SVC_INDEX_DIR) });
  const metrics = createWorkerMetrics(logger, { readIndexCacheBytes: () => index.cachedBytes() });
  // The webhook sender's own two connections: however many tries it records, indexing never waits for one.
  const webhookDb = createDb({ databaseUrl: env.DATABASE_URL, poolSize: 2, applicationName: "svc-worker-webhooks" });
  // Idempotent: a worker started on its own (another machine, a new release) brings its queues.
  await installJobQueues(env.DATABASE_URL);
  const boss = await startJobQueue({ databaseUrl: env.DATABASE_URL, role: "worker" });
  // Before any job writes to it: an index that is lost, damaged, another database's or older than
  // this one is emptied and refilled from PostgreSQL by a rebuild (shown by `svc index status`).
  const ensured = await ensureSearchIndex({ db, boss, index });
  if (ensured.refillReason !== null) {
    logger.warn(
      { index_dir: env.SVC_INDEX_DIR, reason: ensured.refillReason, generation_id: ensured.generationId },
      `search index: ${ensured.refillReason}; refilling it from PostgreSQL`,
    );
  }
  const self: WorkerIdentity = { workerId: randomUUID(), hostname: os.hostname(), pid: process.pid };
  const heartbeat = await startHeartbeat({ db, self, seconds: env.SVC_WORKER_HEARTBEAT_SECONDS, metrics, logger });
  // Attempts a crashed worker left open, when no other worker is there to carry their pairs on.
  await endAttemptsLeftWithoutWorker({ db, self, logger, when: "start" });
  // Aborted at shutdown: long batch jobs stop at once rather than hold the shutdown for their grace period.
  const stopping = new AbortController();
  const attemptSweep = startAttemptSweep({ db, logger });
  const eventPurge = startEventPurge({
    db,
    retentionHours: env.SVC_EVENT_RETENTION_HOURS,
    deliveryRetentionHours: env.SVC_WEBHOOK_DELIVERY_RETENTION_HOURS,
    logger,
  });
  const webhooks = startWebhookDelivery({
    db: webhookDb,
    logger,
    allowPrivate: env.SVC_WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: env.SVC_WEBHOOK_TIMEOUT_MS,
    queueBound: env.SVC_WEBHOOK_QUEUE_BOUND,
  });
  // Under `svc start` the maintenance process maintains the index (apps/worker/src/maintain.ts); a
  // worker started alone does it itself unless told that one runs.
  const maintenance = env.SVC_WORKER_MAINTAINS_INDEX
    ? startIndexMaintenance({ db, index, env, metrics, onMerged: () => heartbeat.publishSoon(), logger })
    : null;

  // The SVC_WORKER_CONCURRENCY pollers take turns over pg-boss's shortest interval, 0.5 s (4 pollers:
  // an idle one fetches every 125 ms), which bounds the wait of a new job; a fetch that comes back full
  // fetches again at once (burstWhenBatchFull), so a backlog is worked through without a pause between
  // batches.
  await workJobs(
    boss,
    indexDocumentJob,
    {
      batchSize: env.SVC_WORKER_BATCH_SIZE,
      localConcurrency: env.SVC_WORKER_CONCURRENCY,
      pollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
      pollInTurn: true,
    },
    async (jobs) => {
      // While the database does not answer (decisions: "Limits and overload") the batch waits for it
      // a while rather than fail at once into a retry.
      await whenDatabaseAnswers(db, STALLED_DATABASE_WAIT_MS);
      const started = performance.now();
      const indexed = new Map<string, IndexedDocument>();
      let failure: Error | undefined;
      try {
        await indexDocuments({
          db,
          index,
          jobs: jobs.map((job) => job.payload),
          attemptWindow,
          onIndexed: (documents) => {
            for (const document of documents) {
              indexed.set(document.documentId, document);
              metrics.observeIndexingLag(document.lagSeconds);
            }
            // Their events committed with them: this worker's sender fans them out now, not at its next tick.
            if (documents.length > 0) webhooks.kick();
          },
        });
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      const seconds = (performance.now() - started) / 1000;
      for (const job of jobs) {
        const { documentId, version } = job.payload;
        const done = indexed.get(documentId);
        // A job whose document this batch did not index: superseded, already indexed, paused, or
        // (when the batch threw) failed; pg-boss retries the whole batch then.
        const outcome = done?.version === version ? "indexed" : failure === undefined ? "skipped" : "failed";
        const fields = { document_id: documentId, version, batch_size: jobs.length, ...(done && { lag_ms: Math.round(done.lagSeconds * 1000) }) };
        metrics.recordJob({ queue: indexDocumentJob.name, job, outcome, seconds, error: failure, fields });
      }
      heartbeat.publishSoon();
      if (failure !== undefined) throw failure;
    },
  );
  // Pair deletions are rare and long: one at a time, each working through the pair batch by batch.
  const oneAtATime = { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 2 };
  await workJobs(boss, deleteCcPairJob, oneAtATime, (jobs) =>
    observeJobs(deleteCcPairJob.name, jobs, async ({ payload }) => {
      const result = await purgeCcPair({ db, index, ccPairId: payload.ccPairId });
      return { cc_pair_id: payload.ccPairId, purged: result.purged, links_removed: result.linksRemoved, documents_deleted: result.documentsDeleted };
    }),
  );
  // Index rebuilds and the purge of a replaced generation: rare and long, one at a time, batch by batch.
  await workJobs(boss, rebuildIndexJob, oneAtATime, (jobs) =>
    observeJobs(rebuildIndexJob.name, jobs, async ({ payload, signal }) => {
      const result = await runIndexRebuild({ db, boss, index, generationId: payload.generationId, signal: AbortSignal.any([stopping.signal, signal]) });
      if (result.swapped) logger.info({ generation_id: payload.generationId }, `index generation ${payload.generationId} is current`);
      return { generation_id: payload.generationId, swapped: result.swapped, docs_done: result.docsDone, docs_failed: result.docsFailed };
    }),
  );
  await workJobs(boss, purgeIndexGenerationJob, oneAtATime, (jobs) =>
    observeJobs(purgeIndexGenerationJob.name, jobs, async ({ payload }) => {
      const result = await purgeIndexGeneration({ db, index, generationId: payload.generationId });
      return { generation_id: payload.generationId, purged: result.purged, chunks_deleted: result.chunksDeleted };
    }),
  );
  logger.info({ queues: [indexDocumentJob, deleteCcPairJob, rebuildIndexJob, purgeIndexGenerationJob].map((job) => job.name) }, "consuming jobs");

  /** Runs each job, then logs and counts its outcome with the fields its run returned. */
  async function observeJobs<Payload>(
    queue: string,
    jobs: ReceivedJob<Payload>[],
    run: (job: ReceivedJob<Payload>) => Promise<Record<string, unknown>>,
  ): Promise<void> {
    for (const job of jobs) {
      const started = performance.now();
      try {
        const fields = await run(job);
        metrics.recordJob({ queue, job, outcome: "completed", seconds: (performance.now() - started) / 1000, fields });
      } catch (error) {
        metrics.recordJob({ queue, job, outcome: "failed", seconds: (performance.now() - started) / 1000, error });
        throw error;
      } finally {
        heartbeat.publishSoon();
      }
    }
  }

  const shutdown = async (signal: string) => {
    if (stopping.signal.aborted) return;
    // A rebuild stops at once: its batch in flight rolls back, its attempts end `interrupted`, its job
    // fails into a retry that resumes at the cursor (here after a restart, or on another worker).
    stopping.abort();
    logger.info({ signal }, "finishing in-flight jobs");
    // Bounded whatever a handler does: past the grace period and a margin, the process ends anyway
    // (every write is transactional, so PostgreSQL rolls back what was in flight).
    setTimeout(() => {
      logger.error({ grace_ms: env.SVC_SHUTDOWN_GRACE_MS }, "shutdown overran its grace period; exiting");
      logger.flush();
      process.exit(1);
    }, env.SVC_SHUTDOWN_GRACE_MS + SHUTDOWN_MARGIN_MS).unref();
    await heartbeat.stop();
    attemptSweep.stop();
    eventPurge.stop();
    await webhooks.stop();
    await maintenance?.stop();
    // Graceful: stop fetching, wait for running handlers; pg-boss fails the jobs still active at the
    // timeout, and their retries run on another worker. A worker that dies without this (kill -9)
    // leaves its jobs active until their heartbeat lapses (HEARTBEAT_SECONDS in the job catalog).
    await boss.stop({ graceful: true, close: true, timeout: env.SVC_SHUTDOWN_GRACE_MS });
    await endAttemptsLeftWithoutWorker({ db, self, logger, when: "stop" });
    await db.$disconnect();
    await webhookDb.$disconnect();
    await gatesDb.$disconnect();
    logger.info("stopped");
    logger.flush();
    process.exit(0);
  };
  onStopSignal = (signal) => void shutdown(signal);
  if (earlySignal !== null) void shutdown(earlySignal);
  // Under `svc start` the IPC channel to the supervisor closes when it dies (even by kill -9).
  process.once("disconnect", () => void shutdown("supervisor gone"));
  if (process.send && !process.connected) void shutdown("supervisor gone");
}

/** How long past SVC_SHUTDOWN_GRACE_MS a stopping worker waits for its own clean-up before it exits. */
const SHUTDOWN_MARGIN_MS = 10_000;

/**
 * Ends the open attempts of indexing jobs (endOrphanedAttempts) when no other worker is alive to carry
 * their pairs on: as the last worker stops, or as a worker starts after the others stopped or died.
 * A worker is alive while its heartbeat is recent, except one of this host whose process is gone (a
 * crashed worker that a supervisor restarted at once: its row looks recent for up to a minute). A
 * failure is logged: the next start tries again.
 */
async function endAttemptsLeftWithoutWorker({ db, self, logger, when }: { db: Db; self: WorkerIdentity; logger: Logger; when: "start" | "stop" }): Promise<void> {
  try {
    const others = (await listLiveWorkers({ db, maxAgeSeconds: WORKER_HEARTBEAT_MAX_AGE_SECONDS })).filter(
      (worker) => worker.workerId !== self.workerId && !deadOnThisHost(worker, self),
    );
    if (others.length > 0) return;
    const ended = await endOrphanedAttempts(db);
    if (ended.closed + ended.interrupted > 0) logger.info({ ...ended, when }, "ended the index attempts no worker carries on");
  } catch (error) {
    logger.error({ error: (error as Error).message, when }, "could not end the index attempts no worker carries on");
  }
}

/** A worker row of this host whose process is gone (or is this process under an earlier worker id). */
function deadOnThisHost(worker: WorkerIdentity, self: WorkerIdentity): boolean {
  if (worker.hostname !== self.hostname) return false;
  if (worker.pid === self.pid) return true;
  try {
    process.kill(worker.pid, 0);
    return false;
  } catch (error) {
    // EPERM: a process of another user has the pid; it is running.
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}

/**
 * Closes, every 15 s, open attempts whose pairs have nothing left to index (closeDrainedAttempts): the
 * indexing closes an attempt in the transaction that drains its pair, and this catches what no
 * indexing transaction drained. A failed sweep (database away) is retried on the next tick.
 */
function startAttemptSweep({ db, logger }: { db: Db; logger: Logger }): { stop: () => void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    closeDrainedAttempts(db)
      .then((closed) => {
        if (closed > 0) logger.info({ closed }, "attempt sweep closed attempts of drained pairs");
      })
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, "attempt sweep failed"))
      .finally(() => (running = false));
  }, ATTEMPT_SWEEP_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Events past the retention window go, and webhook deliveries that ended past theirs, hourly (and once
 * at start); a failed purge is retried at the next.
 */
function startEventPurge({
  db,
  retentionHours,
  deliveryRetentionHours,
  logger,
}: {
  db: Db;
  retentionHours: number;
  deliveryRetentionHours: number;
  logger: Logger;
}): { stop: () => void } {
  const purge = () => {
    void purgeExpiredEvents(db, retentionHours).catch((error: unknown) => logger.error({ error: (error as Error).message }, "event purge failed"));
    void purgeFinishedWebhookDeliveries(db, deliveryRetentionHours).catch((error: unknown) =>
      logger.error({ error: (error as Error).message }, "webhook delivery purge failed"),
    );
  };
  purge();
  const timer = setInterval(purge, 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

main().catch(exitOnStartFailure("worker"));
