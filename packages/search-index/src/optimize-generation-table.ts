import { addMissingScalarIndexes } from "./create-generation-table";
import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";

/**
 * Background maintenance of a generation's table: merges rows written since the last run into the
 * FTS and B-tree indexes (until then queries scan them, which is correct but slower), compacts small
 * fragments left by many batch commits, and prunes table versions older than `pruneOlderThan` (the
 * current version is always kept). Files of writes still in flight are protected by LanceDB's own
 * 7-day rule for unverified files, so this is safe while other workers write. A table created before
 * a scalar index was added to the package gets it here first.
 */
export async function optimizeGenerationTable({
  generation,
  pruneOlderThan,
}: {
  generation: GenerationTable;
  pruneOlderThan: Date;
}): Promise<{ fragmentsRemoved: number; versionsRemoved: number }> {
  await retryCommitConflict(() => addMissingScalarIndexes(generation.table));
  const stats = await retryCommitConflict(() =>
    generation.table.optimize({ cleanupOlderThan: pruneOlderThan, deleteUnverified: false }),
  );
  return { fragmentsRemoved: stats.compaction.fragmentsRemoved, versionsRemoved: stats.prune.oldVersionsRemoved };
}
