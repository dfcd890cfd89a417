import type { Db } from "@svc/db";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { indexDocumentJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { lockEditableDocument } from "./document-access";

/**
 * Indexes a `failed` document again (the console's retry button): in one transaction the document
 * goes back to `queued` and a new indexing job for its current version is written, so the job exists
 * exactly when the status says it is waiting. The row is locked as ingestion and indexing lock it;
 * the same scope rule as deleting applies (every pair of the document editable).
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
    await tx.document.update({ where: { id: documentId }, data: { indexingStatus: "queued" } });
    await sendJob(boss, indexDocumentJob, { documentId, version: document.version }, { tx });
  });
}
