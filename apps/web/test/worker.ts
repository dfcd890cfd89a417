// A real indexing worker for the web tests: pg-boss consuming the index-document queue of the test
// database and running the core handler, wired as apps/worker/src/main.ts wires it, in this process
// (the web package's tests cannot rely on the worker's build).
import { indexDocumentJob, indexDocuments, startJobQueue, workJobs } from "@svc/core";
import type { Db } from "@svc/db";

export interface TestWorker {
  stop(): Promise<void>;
}

export async function startTestWorker({ db, databaseUrl }: { db: Db; databaseUrl: string }): Promise<TestWorker> {
  const boss = await startJobQueue({ databaseUrl, role: "worker" });
  await workJobs(boss, indexDocumentJob, { batchSize: 20, localConcurrency: 2, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await indexDocuments({ db, jobs: jobs.map((job) => job.payload) });
  });
  return { stop: () => boss.stop({ graceful: true, close: true, timeout: 10_000 }) };
}
