import { Prisma, executeSql, selectSql, type AnyTx, type Db } from "@svc/db";
import { markRebuildFailedDocuments } from "./document-rows";

/**
 * The one writer of `rebuild_failure`: the documents a rebuild's pass could not write into the
 * generation it builds. They stay `indexed` while the current generation still serves them; once the
 * generation is swapped in, those still without chunks in it become `failed` with the pass's error,
 * so a document search no longer finds never reads as indexed.
 */

/** Records the batch's failures (a run of the job that writes the batch again overwrites them). */
export async function recordRebuildFailures(tx: AnyTx, generationId: number, failures: Map<string, string>): Promise<void> {
  if (failures.size === 0) return;
  await executeSql(
    tx,
    Prisma.sql`
      INSERT INTO rebuild_failure (generation_id, document_id, error)
      SELECT ${generationId}, f.document_id, f.error FROM unnest(${[...failures.keys()]}::text[], ${[...failures.values()]}::text[]) AS f(document_id, error)
      ON CONFLICT (generation_id, document_id) DO UPDATE SET error = EXCLUDED.error`,
  );
}

/**
 * After the swap, in a transaction of its own (it locks document rows, which come before the
 * generation lock the swap holds): the generation's failed documents that are still `indexed` and
 * have no chunks in it (their own indexing job did not write them since) become `failed` with the
 * pass's error; the records go. Does nothing unless the generation is current. Returns how many
 * documents it marked.
 */
export async function markRebuildFailures(db: Db, generationId: number): Promise<number> {
  return db.$transaction(async (tx) => {
    const locked = await selectSql<{ id: string }>(
      tx,
      Prisma.sql`
        SELECT d.id FROM rebuild_failure f
        JOIN index_generation g ON g.id = f.generation_id AND g.status = 'current'
        JOIN document d ON d.id = f.document_id
        WHERE f.generation_id = ${generationId}
        ORDER BY d.id
        FOR UPDATE OF d`,
    );
    if (locked.length === 0) return 0;
    const marked = await markRebuildFailedDocuments(tx, generationId);
    await deleteRebuildFailures(tx, generationId);
    return marked;
  });
}

/** A canceled rebuild's failures never happened to the index search reads. */
export async function deleteRebuildFailures(tx: AnyTx, generationId: number): Promise<void> {
  await executeSql(tx, Prisma.sql`DELETE FROM rebuild_failure WHERE generation_id = ${generationId}`);
}
