import type { Db } from "@svc/db";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { recordDocumentsDeletedEvents } from "../events/event-rows";
import { unlinkDocumentFromPairs } from "../indexing/cc-pair-rows";
import { deleteDocumentRow } from "../indexing/document-rows";
import { closeAttemptIfDrained, lockDocumentPairs } from "../indexing/index-attempts";
import { lockEditableDocument } from "./document-access";
import { removeIndexRows } from "../search-index/remove-index-rows";
import type { SearchIndexTables } from "../search-index/search-index-tables";

/**
 * Deletes a document created through the ingestion API: its links (each pair whose link was
 * indexed counts one document less), its sections, its chunks and its rows in the search index, in
 * one transaction. The document
 * row is locked first, as ingestion and indexing lock it, so a concurrent indexing job waits and
 * then finds nothing to do; a job that runs later skips the missing document.
 */
export async function deleteDocument({
  db,
  index,
  principal,
  documentId,
}: {
  db: Db;
  index: SearchIndexTables;
  principal: Principal;
  documentId: string;
}): Promise<void> {
  return db.$transaction(async (tx) => {
    const document = await lockEditableDocument(tx, principal, documentId);
    if (!document.fromIngestionApi) {
      throw new AppError("BAD_REQUEST", "Only documents created through the ingestion API can be deleted here.");
    }

    // Pair rows are locked in id order before any is updated, as indexing does.
    const pairs = await lockDocumentPairs(tx, documentId);
    await unlinkDocumentFromPairs(tx, documentId);
    // Sections and chunks go with the row (ON DELETE CASCADE).
    await deleteDocumentRow(tx, documentId);
    await recordDocumentsDeletedEvents(tx, [{ documentId, ccPairIds: pairs.map((pair) => pair.id) }]);
    // The document may have been the last one an open attempt was waiting for.
    for (const pair of pairs) await closeAttemptIfDrained(tx, pair.id);
    await removeIndexRows(tx, index, [documentId]);
  });
}
