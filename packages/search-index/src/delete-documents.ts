import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";
import { sqlIn, sqlString } from "./sql-literal";

/**
 * Removes every row of the given documents, in one commit, after any compaction of the table in
 * progress (its TableGate); deleting absent documents is harmless.
 */
export async function deleteDocuments({
  generation,
  documentIds,
}: {
  generation: GenerationTable;
  documentIds: string[];
}): Promise<void> {
  if (documentIds.length === 0) return;
  const condition = sqlIn("document_id", [...new Set(documentIds)].map(sqlString));
  await generation.gate.write(() => retryCommitConflict(() => generation.table.delete(condition)));
}
