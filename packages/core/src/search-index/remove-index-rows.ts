import type { AnyTx } from "@svc/db";
import { deleteDocuments } from "@svc/search-index";
import { removeIndexWriteIntents } from "./index-write-intents";
import { readActiveGenerations } from "./index-generations";
import type { SearchIndexTables } from "./search-index-tables";

/**
 * Removes the rows of deleted documents from the tables of every active generation, inside the
 * transaction that deletes them (which holds their rows locked), before it commits: if this fails,
 * nothing is deleted and the caller (a request, a retried job) tries again. A generation that
 * becomes active later cannot hold them: its pass locks the document rows and finds them gone.
 * Search also drops any row whose document PostgreSQL no longer has, so a row left by a crash
 * between the two commits is never shown.
 */
export async function removeIndexRows(tx: AnyTx, index: SearchIndexTables, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  for (const generation of await readActiveGenerations(tx)) {
    const table = await index.readable(generation.id);
    if (table === null) continue;
    try {
      await deleteDocuments({ generation: table, documentIds });
    } catch (error) {
      index.forget(generation.id);
      throw error;
    }
  }
  await removeIndexWriteIntents(tx, documentIds);
}
