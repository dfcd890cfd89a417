import type { PgBoss } from "pg-boss";
import { indexDocumentJob } from "./catalog";

/**
 * Indexing jobs waiting for a worker (`index-document` queued), as pg-boss's queue row caches it: a
 * one-row read, refreshed by the workers' monitor every JOB_SUPERVISE_SECONDS, and by this call (one
 * aggregate of the queue's jobs) only when that cache is over a minute old. Cheap enough to back
 * ingestion's admission check (decisions.md "Limits and overload") without counting per request.
 */
export async function getIndexingQueueDepth({ boss }: { boss: PgBoss }): Promise<number> {
  const [stats] = await boss.getQueueStats(indexDocumentJob.name, { force: true });
  return stats?.queuedCount ?? 0;
}
