import type { Tx } from "@svc/db";
import { fromPrisma } from "pg-boss";
import { markPairResumed } from "../indexing/cc-pair-rows";
import { closeAttemptIfDrained } from "../indexing/index-attempts";
import { indexDocumentJob } from "../jobs/catalog";
import type { PgBoss } from "../jobs/job-queue";

/**
 * Transition PAUSED → ACTIVE. Resuming a pair that is not paused is a no-op. Returns whether the
 * status changed.
 *
 * While a pair is paused the worker leaves the documents linked only to it `queued` and drops their
 * jobs, so resuming sends one indexing job for each of its queued documents, in this transaction
 * (a duplicate of a job still waiting skips on the version check). The pair's open attempt may have
 * nothing left to wait for (its documents were indexed through another pair): it closes here.
 */
export async function resumeCcPair({ db, boss, ccPairId }: { db: Tx; boss: PgBoss; ccPairId: number }): Promise<boolean> {
  if (!(await markPairResumed(db, ccPairId))) return false;
  const waiting = await db.$queryRaw<{ id: string; version: number }[]>`
    SELECT d.id, d.version FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id
    WHERE l.cc_pair_id = ${ccPairId} AND d.indexing_status IN ('queued', 'indexing')`;
  if (waiting.length > 0) {
    const jobs = waiting.map((document) => ({
      data: indexDocumentJob.payload.parse({ documentId: document.id, version: document.version }),
    }));
    await boss.insert(indexDocumentJob.name, jobs, { db: fromPrisma(db), returnId: false });
  }
  await closeAttemptIfDrained(db, ccPairId);
  return true;
}
