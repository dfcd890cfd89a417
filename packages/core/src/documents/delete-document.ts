import type { AccessType, Db } from "@svc/db";
import type { DeletedDocument } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { closeAttemptIfDrained, lockDocumentPairs } from "../indexing/index-attempts";
import { canEditDocument, canViewDocument, documentNotFound } from "./document-access";

/**
 * Deletes a document created through the ingestion API: its links (each pair whose link was
 * indexed counts one document less), its sections and its chunks, in one transaction. The document
 * row is locked first, as ingestion and indexing lock it, so a concurrent indexing job waits and
 * then finds nothing to do; a job that runs later skips the missing document.
 */
export async function deleteDocument({
  db,
  principal,
  documentId,
}: {
  db: Db;
  principal: Principal;
  documentId: string;
}): Promise<DeletedDocument> {
  return db.$transaction(async (tx) => {
    const [document] = await tx.$queryRaw<{ from_ingestion_api: boolean }[]>`
      SELECT from_ingestion_api FROM document WHERE id = ${documentId} FOR UPDATE`;
    if (!document) throw documentNotFound(documentId);
    // Read after the lock: no link of this document can appear or change until commit.
    const links = await tx.$queryRaw<{ ccPairId: number; accessType: AccessType }[]>`
      SELECT l.cc_pair_id AS "ccPairId", p.access_type::text AS "accessType"
      FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
      WHERE l.document_id = ${documentId}`;
    if (!canViewDocument(principal, links)) throw documentNotFound(documentId);
    if (!canEditDocument(principal, links)) {
      throw new AppError("FORBIDDEN", "This API key may not change every connector-credential pair the document belongs to.");
    }
    if (!document.from_ingestion_api) {
      throw new AppError("BAD_REQUEST", "Only documents created through the ingestion API can be deleted here.");
    }

    // Pair rows are locked in id order before any is updated, as indexing does.
    const pairs = await lockDocumentPairs(tx, documentId);
    await tx.$executeRaw`
      WITH removed AS (
        DELETE FROM document_by_cc_pair WHERE document_id = ${documentId} RETURNING cc_pair_id, has_been_indexed
      )
      UPDATE connector_credential_pair p SET docs_indexed = p.docs_indexed - 1
      FROM removed r WHERE p.id = r.cc_pair_id AND r.has_been_indexed`;
    // Sections and chunks go with the row (ON DELETE CASCADE).
    await tx.$executeRaw`DELETE FROM document WHERE id = ${documentId}`;
    // The document may have been the last one an open attempt was waiting for.
    for (const pair of pairs) await closeAttemptIfDrained(tx, pair.id);
    return { document_id: documentId };
  });
}
