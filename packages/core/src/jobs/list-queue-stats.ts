import type { PgBoss } from "pg-boss";
import { DEAD_LETTER_QUEUE, JOB_CATALOG } from "./catalog";

export interface QueueStats {
  name: string;
  /** Jobs waiting for a worker (created, or waiting for their retry). */
  queued: number;
  /** Of those, the jobs waiting for a retry after a failed run. */
  retrying: number;
  active: number;
  failed: number;
  /** Seconds the oldest queued job has waited; 0 when none waits. */
  oldestQueuedSeconds: number;
}

/**
 * Every queue of the catalog (and the dead-letter queue), counted now from pg-boss's job table in one
 * aggregate. pg-boss's own getQueueStats serves a count cached on the queue row for up to a minute
 * (and ingestion's admission check refreshes that cache), so the console and the metrics would show
 * a queue emptier or fuller than it is; backpressure (SVC_MAX_QUEUE_DEPTH) and retention keep the
 * rows counted bounded. A queue with no job answers zeros.
 */
export async function listQueueStats({ boss }: { boss: PgBoss }): Promise<QueueStats[]> {
  const names = [...JOB_CATALOG.map((job) => job.name), DEAD_LETTER_QUEUE];
  const { rows }: { rows: QueueStats[] } = await boss.getDb().executeSql(
    `SELECT q.name,
       (count(j.id) FILTER (WHERE j.state < 'active'))::int AS queued,
       (count(j.id) FILTER (WHERE j.state = 'retry'))::int AS retrying,
       (count(j.id) FILTER (WHERE j.state = 'active'))::int AS active,
       (count(j.id) FILTER (WHERE j.state = 'failed'))::int AS failed,
       coalesce(extract(epoch FROM now() - min(j.created_on) FILTER (WHERE j.state < 'active')), 0)::float8 AS "oldestQueuedSeconds"
     FROM unnest($1::text[]) AS q(name) LEFT JOIN pgboss.job j ON j.name = q.name
     GROUP BY q.name`,
    [names],
  );
  const byName = new Map(rows.map((row) => [row.name, row]));
  return names.map((name) => byName.get(name) ?? { name, queued: 0, retrying: 0, active: 0, failed: 0, oldestQueuedSeconds: 0 });
}
