import type { QueueDepth } from "@svc/schema";
import type { PgBoss } from "pg-boss";
import { DEAD_LETTER_QUEUE } from "./catalog";
import { listQueueStats } from "./list-queue-stats";

/**
 * The job queues at a glance (the console's queue card): the catalog's queues summed, counted now.
 * Failed jobs are left out: the console counts failure per document (model/failed-document-sql.ts).
 */
export async function getQueueDepth({ boss }: { boss: PgBoss }): Promise<QueueDepth> {
  const queues = await listQueueStats({ boss });
  const work = queues.filter((queue) => queue.name !== DEAD_LETTER_QUEUE);
  const sum = (field: "queued" | "retrying" | "active") => work.reduce((total, queue) => total + queue[field], 0);
  return {
    queued: sum("queued"),
    retrying: sum("retrying"),
    active: sum("active"),
    deadLetter: queues.find((queue) => queue.name === DEAD_LETTER_QUEUE)?.queued ?? 0,
  };
}
