// A real indexing worker for the web tests: pg-boss consuming the index-document queue of the test
// database and running the core handler, wired as apps/worker/src/main.ts wires it, in this process
// (the web package's tests cannot rely on the worker's build).
import { testSearchIndex } from "@svc/core/testing";
import { createLogger, indexDocumentJob, indexDocuments, optimizeSearchIndex, startJobQueue, startWebhookDelivery, workJobs, type AttemptWindow } from "@svc/core";
import { whenDatabaseAnswers, type Db } from "@svc/db";

export interface TestWorker {
  stop(): Promise<void>;
}

export async function startTestWorker({
  db,
  databaseUrl,
  attemptWindow,
  webhooks = false,
}: {
  db: Db;
  databaseUrl: string;
  /** The attempts' quiet period, as SVC_ATTEMPT_QUIET_SECONDS gives the worker; attempts never reopen when absent. */
  attemptWindow?: AttemptWindow;
  /** Sends webhooks too, as the worker does with SVC_WEBHOOK_ALLOW_PRIVATE (a test's receiver is on loopback). */
  webhooks?: boolean;
}): Promise<TestWorker> {
  const boss = await startJobQueue({ databaseUrl, role: "worker" });
  await workJobs(boss, indexDocumentJob, { batchSize: 20, localConcurrency: 2, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await whenDatabaseAnswers(db, 30_000);
    await indexDocuments({ index: testSearchIndex(), db, jobs: jobs.map((job) => job.payload), ...(attemptWindow ? { attemptWindow } : {}) });
  });
  // The worker's index maintenance, on a shorter timer: merges what indexing wrote (one run at a time).
  let merging: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    merging ??= optimizeSearchIndex({ db, index: testSearchIndex() })
      .catch((error: unknown) => console.error("[test worker] optimize failed", error))
      .finally(() => (merging = null));
  }, 1_000);
  const sender = webhooks
    ? startWebhookDelivery({ db, logger: createLogger({ name: "test-worker", level: "warn", pretty: false }), allowPrivate: true, timeoutMs: 10_000, queueBound: 1_000 })
    : null;
  return {
    stop: async () => {
      await sender?.stop();
      clearInterval(timer);
      await merging;
      await boss.stop({ graceful: true, close: true, timeout: 10_000 });
    },
  };
}
