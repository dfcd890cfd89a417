import type { Db } from "@svc/db";
import type { RetryDeadLetterResult } from "@svc/schema";
import { fromPrisma } from "pg-boss";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { resetDocumentTries } from "../indexing/document-rows";
import { DEAD_LETTER_QUEUE, indexDocumentJob } from "../jobs/catalog";
import type { PgBoss } from "../jobs/job-queue";
import { failedDocumentSql } from "../model/failed-document-sql";

/**
 * Moves dead-letter jobs back to the queue they failed on (`jobIds`, or every waiting one when null),
 * as new jobs with that queue's policy, through pg-boss's own redrive. The job queue is shared by every
 * pair, so this is an admin without scope's (as a rebuild is). In one transaction: the jobs are
 * locked, the failed documents of indexing jobs start their tries from 0 again (as the console's retry
 * of a failed document: a failure is counted in their pairs' attempts once more), and the jobs move.
 * A job another retry moved first is not found: NOT_FOUND when none of those named is left.
 */
export async function retryDeadLetterJobs({
  db,
  boss,
  principal,
  jobIds,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  jobIds: string[] | null;
}): Promise<RetryDeadLetterResult> {
  requireUnscopedAdmin(principal);
  return db.$transaction(async (tx) => {
    const jobs = await tx.$queryRaw<{ id: string; documentId: string | null }[]>`
      SELECT id::text, CASE WHEN source_name = ${indexDocumentJob.name} THEN data->>'documentId' END AS "documentId"
      FROM pgboss.job
      WHERE name = ${DEAD_LETTER_QUEUE} AND state < 'active' AND (${jobIds}::uuid[] IS NULL OR id = ANY(${jobIds}::uuid[]))
      ORDER BY created_on, id
      FOR UPDATE`;
    if (jobs.length === 0) {
      if (jobIds !== null) throw new AppError("NOT_FOUND", "No such job in the dead-letter queue: it was retried already, or is gone.");
      return { retried: 0 };
    }
    const documentIds = [...new Set(jobs.flatMap((job) => (job.documentId === null ? [] : [job.documentId])))];
    // Locked in id order, as ingestion and indexing lock documents.
    const failed = await tx.$queryRaw<{ id: string }[]>`
      SELECT d.id FROM document d WHERE d.id = ANY(${documentIds}::text[]) AND ${failedDocumentSql("d")} ORDER BY d.id FOR UPDATE`;
    await resetDocumentTries(
      tx,
      failed.map((document) => document.id),
    );
    const retried = await boss.redrive(DEAD_LETTER_QUEUE, { ids: jobs.map((job) => job.id), limit: jobs.length, db: fromPrisma(tx) });
    return { retried };
  });
}
