import type { Db } from "@svc/db";

/**
 * What a job that works through many rows a batch at a time is given: each batch is its own statement
 * or transaction, so a run cut short leaves consistent data and the next run carries on.
 */
export interface BatchedJobInput {
  db: Db;
  /** Documents per batch; tests pass small ones to cross batch edges. */
  batchSize?: number;
}

/** Documents per purge batch: large enough to be quick, small enough that one statement stays short. */
export const PURGE_BATCH_SIZE = 500;

/** What a purge job reports: whether it finished the purge, and how many of each thing it deleted. */
export type PurgeResult<Counter extends string> = { purged: boolean } & Record<Counter, number>;
