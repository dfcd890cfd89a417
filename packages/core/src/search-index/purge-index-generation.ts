import { PURGE_BATCH_SIZE, type BatchedJobInput, type PurgeResult } from "../model/batched-job";
import type { SearchIndexTables } from "./search-index-tables";

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
    const [batch] = await db.$queryRaw<{ deleted: number; last_document_id: string | null }[]>`
      WITH documents AS (
        SELECT DISTINCT document_id FROM (
          SELECT c.document_id FROM document_chunk c
          WHERE c.document_id > ${cursor} AND c.generation_id = ${generationId}
          ORDER BY c.document_id LIMIT ${batchSize}
        ) first_chunks
      ), deleted AS (
        DELETE FROM document_chunk c
        WHERE c.document_id = ANY (ARRAY(SELECT document_id FROM documents)) AND c.generation_id = ${generationId}
        RETURNING c.document_id
      )
      SELECT count(*)::int AS deleted, max(document_id) AS last_document_id FROM deleted`;
    if (!batch?.last_document_id) {
      // Its table in the search index goes last: a run cut off before this point drops it next time.
      await index.drop(generationId);
      return { purged: true, chunksDeleted };
    }
    chunksDeleted += batch.deleted;
    cursor = batch.last_document_id;
  }
}
