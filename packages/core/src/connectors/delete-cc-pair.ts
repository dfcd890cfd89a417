import type { Camel, CcPair } from "@svc/schema";
import { markPairDeleting } from "../indexing/cc-pair-rows";
import { deleteCcPairJob } from "../jobs/catalog";
import { sendJob } from "../jobs/job-queue";
import { lockEditableCcPair, readCcPair, type PairJobRequest } from "./cc-pair-record";

/**
 * Starts deleting a pair: in one transaction it goes to DELETING (from then on it takes no new
 * documents and leaves the status listing) and a `delete-cc-pair` job is queued; the job
 * (`purgeCcPair`) removes the data. Asking again for a pair already DELETING queues the job again,
 * which is harmless: the job is safe to run twice.
 */
export async function deleteCcPair({ db, boss, principal, ccPairId }: PairJobRequest): Promise<Camel<CcPair>> {
  return db.$transaction(async (tx) => {
    const pair = await lockEditableCcPair(tx, principal, ccPairId);
    if (pair.status !== "DELETING") {
      await markPairDeleting(tx, pair.id);
    }
    await sendJob(boss, deleteCcPairJob, { ccPairId: pair.id }, { tx });
    return readCcPair(tx, pair.id);
  });
}
