import {
  deleteCcPairJob,
  indexDocumentJob,
  indexDocuments,
  installJobQueues,
  purgeCcPair,
  startJobQueue,
  workJobs,
} from "@svc/core";
import { createDb } from "@svc/db";
import { workerEnv } from "./env";

/**
 * The worker process: wires the job catalog to core handlers. Several may run at once; pg-boss
 * hands each job to one of them.
 */
async function main(): Promise<void> {
  const env = workerEnv();
  const db = createDb({ databaseUrl: env.DATABASE_URL, poolSize: env.SVC_WORKER_CONCURRENCY + 2 });
  // Idempotent: a worker started on its own (another machine, a new release) brings its queues.
  await installJobQueues(env.DATABASE_URL);
  const boss = await startJobQueue({ databaseUrl: env.DATABASE_URL, role: "worker" });

  await workJobs(
    boss,
    indexDocumentJob,
    { batchSize: env.SVC_WORKER_BATCH_SIZE, localConcurrency: env.SVC_WORKER_CONCURRENCY, pollingIntervalSeconds: 0.5 },
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
  console.log(`[worker] consuming ${indexDocumentJob.name} and ${deleteCcPairJob.name} jobs`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[worker] ${signal}: finishing in-flight jobs`);
    // Graceful: stop fetching, wait for running handlers; jobs still active at the timeout are
    // released by pg-boss's expiry and retried by another worker.
    await boss.stop({ graceful: true, close: true, timeout: env.SVC_SHUTDOWN_GRACE_MS });
    await db.$disconnect();
    console.log("[worker] stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  console.error("[worker] failed to start", error);
  process.exit(1);
});
