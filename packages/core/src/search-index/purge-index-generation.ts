import type { Db } from "@svc/db";

export interface PurgeIndexGenerationResult {
  /** False when the generation is not retired or canceled (or does not exist): nothing was deleted. */
  purged: boolean;
  chunksDeleted: number;
}

/**
 * The `purge-index-generation` job: deletes the chunks of a retired or canceled generation, the chunks
 * of `batchSize` documents per statement, walking the chunk key in document order. No transaction
 * writes to such a generation any more (indexing writes only the active ones, read under the
 * generation lock), so a batch needs no lock, a run cut short leaves nothing inconsistent, and running
 * it again finishes the work.
 */
export async function purgeIndexGeneration({
  db,
  generationId,
  batchSize = 500,
}: {
  db: Db;
  generationId: number;
  batchSize?: number;
}): Promise<PurgeIndexGenerationResult> {
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
    if (!batch?.last_document_id) return { purged: true, chunksDeleted };
    chunksDeleted += batch.deleted;
    cursor = batch.last_document_id;
  }
}
