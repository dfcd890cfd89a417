import { toChunkTable, type ChunkRow } from "./chunk-row";
import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";
import { SearchIndexError } from "./search-index-error";
import { sqlIn, sqlString } from "./sql-literal";

/**
 * Replaces the rows of a batch of documents with `chunks`, in one commit for the whole batch: a
 * merge on chunk_id (document and chunk index) updates the chunks that still exist, inserts new ones and
 * deletes the batch's documents' rows that are not in `chunks` (a document listed with no chunks
 * loses all its rows). Readers see each document entirely before or entirely after. Running the
 * same batch again leaves the same rows, so a retried job is harmless.
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
  const batchCondition = sqlIn("document_id", [...ids].map(sqlString));
  const { table } = generation;
  if (chunks.length === 0) {
    await retryCommitConflict(() => table.delete(batchCondition));
    return;
  }
  const data = toChunkTable(chunks);
  await retryCommitConflict(() =>
    table
      .mergeInsert("chunk_id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where: batchCondition })
      .execute(data),
  );
}
