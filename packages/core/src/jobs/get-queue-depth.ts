import type { QueueDepth } from "@svc/schema";
import type { PgBoss } from "pg-boss";
import { DEAD_LETTER_QUEUE, JOB_CATALOG } from "./catalog";

/**
 * The job queues at a glance, summed over the catalog's queues. pg-boss counts by aggregating its job
 * table and caches the result on the queue row; `force` limits that cache to a minute, the freshness a
 * console that polls needs without scanning the job table on every poll (pg-boss's own advice).
 */
export async function getQueueDepth({ boss }: { boss: PgBoss }): Promise<QueueDepth> {
  const stats = async (name: string) => (await boss.getQueueStats(name, { force: true }))[0];
  const [deadLetter, ...work] = await Promise.all([stats(DEAD_LETTER_QUEUE), ...JOB_CATALOG.map((job) => stats(job.name))]);
  const sum = (field: "queuedCount" | "activeCount" | "failedCount") =>
    work.reduce((total, queue) => total + (queue?.[field] ?? 0), 0);
  return {
    queued: sum("queuedCount"),
    active: sum("activeCount"),
    failed: sum("failedCount"),
    deadLetter: deadLetter?.queuedCount ?? 0,
  };
}
