import { z } from "zod";
import type { Queue } from "pg-boss";

/**
 * Every background job of svc: its queue name, its payload schema (checked when sent and when
 * received) and its queue policy (retries, expiry, dead letters).
 */
export interface JobDefinition<Payload> {
  name: string;
  payload: z.ZodType<Payload>;
  queue: Omit<Queue, "name">;
}

function defineJob<Payload>(definition: JobDefinition<Payload>): JobDefinition<Payload> {
  return definition;
}

export const DEAD_LETTER_QUEUE = "dead-letter";

/**
 * How a job outlives the worker that took it. While a handler runs, pg-boss refreshes the job's
 * heartbeat every HEARTBEAT_SECONDS / 2 on a timer of its own, however long the handler takes; a job
 * whose heartbeat is HEARTBEAT_SECONDS old belongs to a worker that is gone (kill -9, a lost machine)
 * and the supervisor of any live worker (JOB_SUPERVISE_SECONDS, job-queue.ts) fails it into a retry.
 * So a killed worker's jobs run again within about a minute (30 s + up to 2 × 10 s + the retry delay),
 * while the expiry bounds only a handler that is alive but stuck. 30 s leaves room for the event
 * loop's longest synchronous stretch: chunking a 20 MB document blocks it for about 2 s.
 */
export const HEARTBEAT_SECONDS = 30;

/**
 * The policy of the rare, long jobs that work batch by batch, each batch its own transaction (pair
 * deletion, index rebuild, generation purge): a run cut off is retried and carries on where it stopped.
 */
function batchJobQueue({ expireInSeconds }: { expireInSeconds: number }): Omit<Queue, "name"> {
  return {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deadLetter: DEAD_LETTER_QUEUE,
  };
}

export const indexDocumentJob = defineJob({
  name: "index-document",
  payload: z.object({
    documentId: z.string().min(1),
    /** The document version this job was sent for; a stale job finds a newer version and skips. */
    version: z.number().int().positive(),
  }),
  queue: {
    retryLimit: 5,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    // A batch of up to SVC_WORKER_BATCH_SIZE documents, one of them possibly 20 MB: minutes at worst.
    expireInSeconds: 15 * 60,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deadLetter: DEAD_LETTER_QUEUE,
  },
});

export type IndexDocumentPayload = z.infer<typeof indexDocumentJob.payload>;

export const deleteCcPairJob = defineJob({
  name: "delete-cc-pair",
  payload: z.object({
    /** A pair already marked DELETING; the handler removes its documents and links, then the pair. */
    ccPairId: z.number().int().positive(),
  }),
  // Large pairs are removed batch by batch; a job cut off by the expiry resumes where it stopped.
  queue: batchJobQueue({ expireInSeconds: 60 * 60 }),
});

export type DeleteCcPairPayload = z.infer<typeof deleteCcPairJob.payload>;

export const rebuildIndexJob = defineJob({
  name: "rebuild-index",
  payload: z.object({
    /** A `building` index generation; the handler writes every indexed document into it, then swaps it in. */
    generationId: z.number().int().positive(),
  }),
  // Hours for a large index (pg-boss's longest expiry); the heartbeat tells a dead worker apart. A run
  // cut off (crash, expiry) is retried and resumes after the generation's cursor.
  queue: batchJobQueue({ expireInSeconds: 24 * 60 * 60 }),
});

export type RebuildIndexPayload = z.infer<typeof rebuildIndexJob.payload>;

export const purgeIndexGenerationJob = defineJob({
  name: "purge-index-generation",
  payload: z.object({
    /** A `retired` or `canceled` index generation whose chunks are deleted, batch by batch. */
    generationId: z.number().int().positive(),
  }),
  queue: batchJobQueue({ expireInSeconds: 60 * 60 }),
});

export type PurgeIndexGenerationPayload = z.infer<typeof purgeIndexGenerationJob.payload>;

export const JOB_CATALOG: readonly JobDefinition<unknown>[] = [
  indexDocumentJob,
  deleteCcPairJob,
  rebuildIndexJob,
  purgeIndexGenerationJob,
];
