import {
  deleteCcPairJob,
  indexDocumentJob,
  indexDocuments,
  installJobQueues,
  purgeCcPair,
  purgeIndexGeneration,
  purgeIndexGenerationJob,
  rebuildIndexJob,
  recordWorkerHeartbeat,
  removeWorkerHeartbeat,
  runIndexRebuild,
  startJobQueue,
  workJobs,
} from "@svc/core";
import { randomUUID } from "node:crypto";
import os from "node:os";
import { createDb, isDatabaseUnavailable, type Db } from "@svc/db";
import { workerEnv } from "./env";

/**
 * The worker process: wires the job catalog to core handlers. Several may run at once; pg-boss
 * hands each job to one of them.
 */
async function main(): Promise<void> {
  const env = workerEnv();
  // A connection for each indexing batch in flight, plus one each for a pair deletion, an index rebuild
  // and a generation purge, plus one spare.
  const db = createDb({ databaseUrl: env.DATABASE_URL, poolSize: env.SVC_WORKER_CONCURRENCY + 4, applicationName: "svc-worker" });
  // Idempotent: a worker started on its own (another machine, a new release) brings its queues.
  await installJobQueues(env.DATABASE_URL);
  const boss = await startJobQueue({ databaseUrl: env.DATABASE_URL, role: "worker" });

  // Polls every 0.5 s (pg-boss's minimum) while the queue keeps up, which bounds the wait of a new
  // job; a fetch that comes back full fetches again at once (burstWhenBatchFull), so a backlog is
  // worked through without a pause between batches.
  await workJobs(
    boss,
    indexDocumentJob,
    {
      batchSize: env.SVC_WORKER_BATCH_SIZE,
      localConcurrency: env.SVC_WORKER_CONCURRENCY,
      pollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
    },
    async (jobs) => {
      await indexDocuments({ db, jobs: jobs.map((job) => job.payload) });
    },
  );
  // Pair deletions are rare and long: one at a time, each working through the pair batch by batch.
  await workJobs(boss, deleteCcPairJob, { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const result = await purgeCcPair({ db, ccPairId: job.payload.ccPairId });
      if (result.purged) {
        console.log(
          `[worker] deleted pair ${job.payload.ccPairId}: ${result.linksRemoved} links, ${result.documentsDeleted} documents`,
        );
      }
    }
  });
  // Index rebuilds and the purge of a replaced generation: rare and long, one at a time, batch by batch.
  await workJobs(boss, rebuildIndexJob, { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const result = await runIndexRebuild({ db, boss, generationId: job.payload.generationId });
      if (result.swapped) {
        console.log(
          `[worker] index generation ${job.payload.generationId} is current: ${result.docsDone} documents rebuilt by this run, ${result.docsFailed} failed`,
        );
      }
    }
  });
  await workJobs(boss, purgeIndexGenerationJob, { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      const result = await purgeIndexGeneration({ db, generationId: job.payload.generationId });
      if (result.purged) console.log(`[worker] index generation ${job.payload.generationId}: ${result.chunksDeleted} chunks deleted`);
    }
  });
  console.log(
    `[worker] consuming ${[indexDocumentJob, deleteCcPairJob, rebuildIndexJob, purgeIndexGenerationJob].map((job) => job.name).join(", ")} jobs`,
  );

  const heartbeat = startHeartbeat(db, env.SVC_WORKER_HEARTBEAT_SECONDS);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[worker] ${signal}: finishing in-flight jobs`);
    await heartbeat.stop();
    // Graceful: stop fetching, wait for running handlers; pg-boss fails the jobs still active at the
    // timeout, and their retries run on another worker. A worker that dies without this (kill -9)
    // leaves its jobs active until their heartbeat lapses (HEARTBEAT_SECONDS in the job catalog).
    await boss.stop({ graceful: true, close: true, timeout: env.SVC_SHUTDOWN_GRACE_MS });
    await db.$disconnect();
    console.log("[worker] stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // Under `svc start` the IPC channel to the supervisor closes when it dies (even by kill -9).
  process.once("disconnect", () => void shutdown("supervisor gone"));
  if (process.send && !process.connected) void shutdown("supervisor gone");
}

/**
 * Stamps this worker's heartbeat row now and then every `seconds` (readiness wants one within 60 s),
 * on a timer of its own, off the job path. A failed stamp (database away) is retried on the next tick.
 */
function startHeartbeat(db: Db, seconds: number): { stop: () => Promise<void> } {
  const beat = { db, workerId: randomUUID(), hostname: os.hostname(), pid: process.pid, startedAt: new Date() };
  let warned = false;
  const stamp = () =>
    recordWorkerHeartbeat(beat).then(
      () => (warned = false),
      (error: unknown) => {
        if (!warned) console.error(`[worker] heartbeat not recorded: ${(error as Error).message}`);
        warned = true;
      },
    );
  void stamp();
  const timer = setInterval(() => void stamp(), seconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await removeWorkerHeartbeat({ db, workerId: beat.workerId }).catch(() => undefined);
    },
  };
}

main().catch((error: unknown) => {
  // An unreachable database is an operating condition, not a bug: one line (a supervisor restarts us).
  if (isDatabaseUnavailable(error)) console.error(`[worker] failed to start, database unavailable: ${(error as Error).message}`);
  else console.error("[worker] failed to start", error);
  process.exit(1);
});
