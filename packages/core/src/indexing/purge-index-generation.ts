import { PURGE_BATCH_SIZE, type BatchedJobInput, type PurgeResult } from "../model/batched-job";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { deleteGenerationChunkBatch } from "./write-generation-chunks";

/** `purged` is false when the generation is not retired or canceled (or does not exist). */
export type PurgeIndexGenerationResult = PurgeResult<"chunksDeleted">;

/**
 * The `purge-index-generation` job: deletes the chunks of a retired or canceled generation (and then
 * its table in the search index), the chunks
 * of `batchSize` documents per statement, walking the chunk key in document order. No transaction
 * writes to such a generation any more (indexing writes only the active ones, read under the
 * generation lock), so a batch needs no lock, a run cut short leaves nothing inconsistent, and running
 * it again finishes the work.
 */
export async function purgeIndexGeneration(input: BatchedJobInput & { index: SearchIndexTables; generationId: number }): Promise<PurgeIndexGenerationResult> {
  const { db, index, generationId, batchSize = PURGE_BATCH_SIZE } = input;
  const generation = await db.indexGeneration.findUnique({ where: { id: generationId }, select: { status: true } });
  if (generation?.status !== "retired" && generation?.status !== "canceled") return { purged: false, chunksDeleted: 0 };

  let chunksDeleted = 0;
  let cursor = "";
  for (;;) {
    const batch = await deleteGenerationChunkBatch(db, generationId, cursor, batchSize);
    if (batch.lastDocumentId === null) {
      // Its table in the search index goes last: a run cut off before this point drops it next time.
      await index.drop(generationId);
      return { purged: true, chunksDeleted };
    }
    chunksDeleted += batch.deleted;
    cursor = batch.lastDocumentId;
  }
}
