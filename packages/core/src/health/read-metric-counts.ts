import { Prisma, selectSql, type Db } from "@svc/db";
import { DocumentIndexingStatusSchema, IndexingStatusSchema, WORKER_HEARTBEAT_MAX_AGE_SECONDS } from "@svc/schema";
import type { PgBoss } from "pg-boss";
import { listQueueStats, type QueueStats } from "../jobs/list-queue-stats";
import { listLiveWorkers, listWorkerMetrics, type HeartbeatRole } from "./worker-heartbeats";

export interface MetricCounts {
  /** Documents by `indexing_status`, every status present (0 when none has it). */
  documentsByStatus: Record<string, number>;
  /** Index attempts by status, every status present. */
  indexAttemptsByStatus: Record<string, number>;
  queues: QueueStats[];
  /** What each live worker and maintenance process last published (prom-client's JSON form). */
  workers: { workerId: string; role: HeartbeatRole; metrics: unknown }[];
  /** Workers with a heartbeat under WORKER_HEARTBEAT_MAX_AGE_SECONDS old, as the health page counts them. */
  liveWorkers: number;
}

/**
 * What GET /api/metrics reads from the database at scrape time. Counted from the tables themselves,
 * so the numbers agree with the console and the CLI whichever process did the work.
 */
export async function readMetricCounts({ db, boss }: { db: Db; boss: PgBoss }): Promise<MetricCounts> {
  const [documents, attempts, queues, workers, liveWorkers] = await Promise.all([
    selectSql<{ status: string; count: number }>(
      db,
      Prisma.sql`SELECT indexing_status::text AS status, count(*)::int AS count FROM document GROUP BY 1`,
    ),
    selectSql<{ status: string; count: number }>(
      db,
      Prisma.sql`SELECT status::text AS status, count(*)::int AS count FROM index_attempt GROUP BY 1`,
    ),
    listQueueStats({ boss }),
    listWorkerMetrics({ db, maxAgeSeconds: WORKER_HEARTBEAT_MAX_AGE_SECONDS }),
    listLiveWorkers({ db, maxAgeSeconds: WORKER_HEARTBEAT_MAX_AGE_SECONDS }),
  ]);
  return {
    documentsByStatus: countsByStatus(DocumentIndexingStatusSchema.options, documents),
    indexAttemptsByStatus: countsByStatus(IndexingStatusSchema.options, attempts),
    queues,
    workers,
    liveWorkers: liveWorkers.length,
  };
}

function countsByStatus(statuses: readonly string[], rows: { status: string; count: number }[]): Record<string, number> {
  const counts = Object.fromEntries(statuses.map((status) => [status, 0]));
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}
