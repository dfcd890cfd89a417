// Getting indexing jobs into the dead-letter queue without waiting out their retries: the queue's 5
// retries back off for about a minute. The documents' queued jobs are canceled and each is sent again
// with no retry (pg-boss's own per-job option), so the first failure of a run moves it to the
// dead-letter queue, exactly as the last failure of a job out of retries does.
import { indexDocumentJob, type PgBoss } from "@svc/core";
import { currentIndexJobs } from "@svc/core/testing";
import type { Db } from "@svc/db";

export async function sendIndexingJobsWithoutRetries(boss: PgBoss, db: Db, documentIds: string[]): Promise<void> {
  const queued = await boss.findJobs<{ documentId: string }>(indexDocumentJob.name, { queued: true });
  const ids = queued.filter((job) => documentIds.includes(job.data.documentId)).map((job) => job.id);
  if (ids.length > 0) await boss.cancel(indexDocumentJob.name, ids);
  for (const payload of await currentIndexJobs(db, documentIds)) await boss.send(indexDocumentJob.name, payload, { retryLimit: 0 });
}
