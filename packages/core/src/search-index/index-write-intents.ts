import { executeSql, Prisma, queryStatement, type AnyTx, type Db } from "@svc/db";

// The writes of `index_write_intent`: how a write to the search index knows that a generation's table
// holds no rows of a document, so that its rows can be appended there rather than merged on chunk_id
// (an append costs the same however many rows await a merge; a merge-insert reads them all).
//
// Every batch that writes documents' rows to the index (an indexing batch, a batch of the rebuild
// pass) records an intent for each of its documents, committed, before it writes any row, and
// removes it in the transaction that commits the documents' chunks, when no other batch has recorded
// one since. A crash between the index's commit and PostgreSQL's leaves the record behind, so the
// next batch of the document counts more than its own write and replaces. A record is one per
// document, whichever generations the batch writes: a table holds no rows of a document when the
// batch's record is the only write recorded and PostgreSQL has no chunk of it in that generation.
// Deleting a document removes its record with its rows (remove-index-rows.ts).

/**
 * Records that a batch is about to write these documents' rows: one more write on each record (a
 * new record counts 1). Committed on its own, before the batch's transaction. Returns each
 * document's count after this batch's.
 */
export async function recordIndexWriteIntents(db: Db, documentIds: string[]): Promise<Map<string, number>> {
  if (documentIds.length === 0) return new Map();
  const rows = await queryStatement<{ document_id: string; writes: number }>(db, {
    name: "svc-record-index-write-intents",
    text: `
      INSERT INTO index_write_intent (document_id) SELECT DISTINCT unnest($1::text[]) ORDER BY 1
      ON CONFLICT (document_id) DO UPDATE SET writes = index_write_intent.writes + 1
      RETURNING document_id, writes`,
    values: [documentIds],
  });
  return new Map(rows.map((row) => [row.document_id, row.writes]));
}

/**
 * The documents, of those this transaction holds locked, that the generation's table holds no rows
 * of: this batch's record is the only write recorded (nothing crashed before it, no other batch
 * came since), and PostgreSQL has no chunk of the document in the generation (no earlier write
 * committed any). Read before the batch replaces the documents' chunks.
 */
export async function findDocumentsWithoutIndexRows(
  sql: AnyTx,
  { generationId, documentIds, intents }: { generationId: number; documentIds: string[]; intents: Map<string, number> },
): Promise<Set<string>> {
  const candidates = documentIds.filter((id) => intents.get(id) === 1);
  if (candidates.length === 0) return new Set();
  const rows = await queryStatement<{ id: string }>(sql, {
    name: "svc-find-documents-without-index-rows",
    text: `
      SELECT i.document_id AS id FROM index_write_intent i
      WHERE i.document_id = ANY($1::text[]) AND i.writes = 1
        AND NOT EXISTS (SELECT 1 FROM document_chunk c WHERE c.document_id = i.document_id AND c.generation_id = $2)`,
    values: [candidates, generationId],
  });
  return new Set(rows.map((row) => row.id));
}

/**
 * Removes, in the batch's transaction, the records of the documents it writes (their chunks commit
 * with it) and of the documents it skips (superseded, already indexed, paused, gone), each only while
 * its count is still this batch's: a batch that recorded a write since keeps it, as its own write
 * may still come and fail. A skipped document's record goes only if this batch created it: a larger
 * count also holds the writes of earlier batches, which may have crashed past the index write.
 */
export async function settleIndexWriteIntents(
  sql: AnyTx,
  { written, wanted, intents }: { written: string[]; wanted: string[]; intents: Map<string, number> },
): Promise<void> {
  const writing = new Set(written);
  const settled = wanted.filter((id) => intents.has(id) && (writing.has(id) || intents.get(id) === 1));
  if (settled.length === 0) return;
  await queryStatement(sql, {
    name: "svc-settle-index-write-intents",
    text: `
      DELETE FROM index_write_intent i USING unnest($1::text[], $2::int[]) AS settled(document_id, writes)
      WHERE i.document_id = settled.document_id AND i.writes = settled.writes`,
    values: [settled, settled.map((id) => intents.get(id) ?? 0)],
  });
}

/** Removes the records of deleted documents, in the transaction that deletes them and their rows. */
export async function removeIndexWriteIntents(tx: AnyTx, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await executeSql(tx, Prisma.sql`DELETE FROM index_write_intent WHERE document_id = ANY(${documentIds}::text[])`);
}
