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
    expireInSeconds: 15 * 60,
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
  queue: {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    // Large pairs are removed batch by batch; a job cut off by the expiry resumes where it stopped.
    expireInSeconds: 60 * 60,
    deadLetter: DEAD_LETTER_QUEUE,
  },
});

export type DeleteCcPairPayload = z.infer<typeof deleteCcPairJob.payload>;

export const JOB_CATALOG: readonly JobDefinition<unknown>[] = [indexDocumentJob, deleteCcPairJob];
