import { chunkKey, toChunkTable, type ChunkRow } from "./chunk-row";
import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";
import { SearchIndexError } from "./search-index-error";
import { sqlIn, sqlString } from "./sql-literal";

/**
 * Replaces the rows of a batch of documents with `chunks`: the batch's chunks are upserted on chunk_id
 * (document and chunk index) in one commit, so each document's current chunks change entirely before or
 * entirely after for readers; then the rows those documents no longer have (a document that shrank, or
 * one listed with no chunks) are deleted in a second commit, only when there are any.
 *
 * Both steps find their rows through the B-tree indexes on chunk_id and document_id, so a commit costs
 * about the same at a million rows as at a thousand. (A single merge that also deletes "rows not matched
 * by the source" joins the whole table on every commit: its cost grew with the table, 2.3 s per batch
 * of 50 documents at 1 M rows; bench/RESULTS.md, "bench/search/replace".) Until the second commit, a
 * document that shrank still shows its old last chunks beside its new ones.
 *
 * Running the same batch again leaves the same rows, so a retried job is harmless.
 */
export async function replaceDocuments({
  generation,
  documentIds,
  chunks,
}: {
  generation: GenerationTable;
  /** Every document the batch replaces, including those that now have no chunks. */
  documentIds: string[];
  chunks: ChunkRow[];
}): Promise<void> {
  const ids = new Set(documentIds);
  for (const chunk of chunks) {
    if (!ids.has(chunk.documentId)) {
      throw new SearchIndexError("INVALID_ARGUMENT", `Chunk of document ${chunk.documentId} is outside the batch.`);
    }
  }
  if (ids.size === 0) return;
  const { table } = generation;
  if (chunks.length > 0) {
    const data = toChunkTable(chunks);
    await retryCommitConflict(() => table.mergeInsert("chunk_id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data));
  }
  const kept = chunks.map((chunk) => sqlString(chunkKey(chunk)));
  const stale = kept.length === 0
    ? sqlIn("document_id", [...ids].map(sqlString))
    : `${sqlIn("document_id", [...ids].map(sqlString))} AND NOT ${sqlIn("chunk_id", kept)}`;
  const found = await table.query().where(stale).select(["chunk_id"]).limit(1).toArray();
  if (found.length > 0) await retryCommitConflict(() => table.delete(stale));
}
