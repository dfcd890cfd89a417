import type { Db, Tx } from "@svc/db";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { resetDocumentTries } from "../indexing/document-rows";
import { indexDocumentJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { lockEditableDocument } from "./document-access";

/**
 * Indexes a `failed` document again (the console's retry button): in one transaction a new indexing
 * job for its current version is written and its tries start again from 0. The document stays
 * `failed` until the job's outcome (a retry is a request, not a fix: docs/decisions.md, "Failed");
 * a try that fails again counts in its pairs' attempts once more, since its tries are back at 0
 * (indexing/index-documents.ts, markDocumentFailed). The row is locked as ingestion and indexing
 * lock it; the same scope rule as deleting applies (every pair of the document editable).
 */
export async function retryDocumentIndexing({
  db,
  boss,
  principal,
  documentId,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  documentId: string;
}): Promise<void> {
  await db.$transaction(async (tx) => {
    const document = await lockEditableDocument(tx, principal, documentId);
    if (document.indexingStatus !== "failed") {
      throw new AppError("CONFLICT", `Only a failed document can be retried; this one is ${document.indexingStatus}.`);
    }
    await sendRetry(tx, boss, [{ id: documentId, version: document.version }]);
  });
}

/** Starts the tries of locked failed documents again and sends their jobs, in the caller's transaction. */
export async function sendRetry(tx: Tx, boss: PgBoss, documents: { id: string; version: number }[]): Promise<void> {
  if (documents.length === 0) return;
  await resetDocumentTries(tx, documents.map((document) => document.id));
  for (const document of documents) await sendJob(boss, indexDocumentJob, { documentId: document.id, version: document.version }, { tx });
}
