import type { QueueDepth } from "@svc/schema";
import type { PgBoss } from "pg-boss";
import { DEAD_LETTER_QUEUE, JOB_CATALOG } from "./catalog";

interface QueueCounts {
  name: string;
  queued: number;
  active: number;
  failed: number;
}

/**
 * The job queues at a glance, summed over the catalog's queues, counted now. pg-boss's own
 * getQueueStats serves a count cached on the queue row for up to a minute (and ingestion's admission
 * check refreshes that cache), so the console would show a queue emptier or fuller than it is: this
 * counts the job table instead, one aggregate over the queues' rows, which backpressure keeps bounded
 * (SVC_MAX_QUEUE_DEPTH) and retention keeps failed rows bounded too.
 */
export async function getQueueDepth({ boss }: { boss: PgBoss }): Promise<QueueDepth> {
  const names = [DEAD_LETTER_QUEUE, ...JOB_CATALOG.map((job) => job.name)];
  const { rows }: { rows: QueueCounts[] } = await boss.getDb().executeSql(
    `SELECT j.name,
       (count(*) FILTER (WHERE j.state < 'active'))::int AS queued,
       (count(*) FILTER (WHERE j.state = 'active'))::int AS active,
       (count(*) FILTER (WHERE j.state = 'failed'))::int AS failed
     FROM pgboss.job j WHERE j.name = ANY($1::text[]) GROUP BY j.name`,
    [names],
  );
  const work = rows.filter((row) => row.name !== DEAD_LETTER_QUEUE);
  const sum = (field: "queued" | "active" | "failed") => work.reduce((total, row) => total + row[field], 0);
  return {
    queued: sum("queued"),
    active: sum("active"),
    failed: sum("failed"),
    deadLetter: rows.find((row) => row.name === DEAD_LETTER_QUEUE)?.queued ?? 0,
  };
}
