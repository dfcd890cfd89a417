import type { Tx } from "@svc/db";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import { removePairFromKeyScopes } from "../auth/manage-api-keys";
import { deleteCcPairRows, unlinkPairDocuments } from "../indexing/cc-pair-rows";
import { recordDocumentsDeletedEvents } from "../events/event-rows";
import { deleteUnlinkedDocuments } from "../indexing/document-rows";
import { deletePairAttempts } from "../indexing/index-attempts";
import { PURGE_BATCH_SIZE, type BatchedJobInput, type PurgeResult } from "../model/batched-job";
import { removeIndexRows } from "../search-index/remove-index-rows";
import type { SearchIndexTables } from "../search-index/search-index-tables";

/** `purged` is false when there was nothing to do: the pair is gone already, or is not marked DELETING. */
export type PurgeCcPairResult = PurgeResult<"linksRemoved" | "documentsDeleted">;

/**
 * The `delete-cc-pair` job: removes a DELETING pair's links, every document no other pair still
 * holds (sections, chunks and search-index rows go with it), its index attempts and API-key scopes, then the pair and
 * its connector and credential. Works in batches, each its own transaction that keeps `docs_indexed`
 * exact, so a run cut short leaves consistent data and the next run carries on. Safe to run twice,
 * and concurrently.
 */
export async function purgeCcPair(input: BatchedJobInput & { index: SearchIndexTables; ccPairId: number }): Promise<PurgeCcPairResult> {
  const { db, index, ccPairId, batchSize = PURGE_BATCH_SIZE } = input;
  const result: PurgeCcPairResult = { purged: false, linksRemoved: 0, documentsDeleted: 0 };
  if (ccPairId === DEFAULT_CC_PAIR_ID) return result;
  const pair = await db.connectorCredentialPair.findUnique({ where: { id: ccPairId }, select: { status: true } });
  if (pair?.status !== "DELETING") return result;

  for (;;) {
    const batch = await db.$transaction((tx) => removeLinkBatch(tx, index, ccPairId, batchSize));
    result.linksRemoved += batch.linksRemoved;
    result.documentsDeleted += batch.documentsDeleted;
    if (batch.documentIds < batchSize && (await db.$transaction((tx) => deletePairIfUnlinked(tx, ccPairId)))) {
      result.purged = true;
      return result;
    }
  }
}

async function removeLinkBatch(tx: Tx, index: SearchIndexTables, ccPairId: number, batchSize: number) {
  // Lock the documents first, in id order, as ingestion and indexing do (they lock the document row
  // before touching its links): no link to them can appear or change until this commits, and
  // concurrent purges of pairs sharing documents cannot deadlock.
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM document d
    WHERE d.id IN (
      SELECT l.document_id FROM document_by_cc_pair l WHERE l.cc_pair_id = ${ccPairId}
      ORDER BY l.document_id LIMIT ${batchSize})
    ORDER BY d.id
    FOR UPDATE`;
  const ids = locked.map((row) => row.id);
  if (ids.length === 0) return { documentIds: 0, linksRemoved: 0, documentsDeleted: 0 };

  const linksRemoved = await unlinkPairDocuments(tx, ccPairId, ids);
  // A new statement, so it sees every link committed before the locks above were granted.
  const deleted = await deleteUnlinkedDocuments(tx, ids);
  await recordDocumentsDeletedEvents(tx, deleted.map((documentId) => ({ documentId, ccPairIds: [ccPairId] })));
  await removeIndexRows(tx, index, deleted);
  return { documentIds: ids.length, linksRemoved, documentsDeleted: deleted.length };
}

/** The last step, once no link is left: everything else of the pair, then the pair. */
async function deletePairIfUnlinked(tx: Tx, ccPairId: number): Promise<boolean> {
  const [pair] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM connector_credential_pair WHERE id = ${ccPairId} FOR UPDATE`;
  if (!pair) return true;
  const [linked] = await tx.$queryRaw<{ found: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM document_by_cc_pair WHERE cc_pair_id = ${ccPairId}) AS found`;
  if (linked?.found) return false;

  await removePairFromKeyScopes(tx, ccPairId);
  await deletePairAttempts(tx, ccPairId);
  await deleteCcPairRows(tx, ccPairId);
  return true;
}
