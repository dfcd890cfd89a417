import { addMissingScalarIndexes, ftsIndex, KEY_INDEXES } from "./create-generation-table";
import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";

/**
 * Merges the rows written since the last merge into the generation's FTS index (until then every
 * search scans them, ~20 µs a row, and ranks them less exactly) by building it again over all rows, in
 * one commit. Unlike optimize's merge it compacts nothing, so it commits beside concurrent writes of
 * every kind (see TableGate) and a steady stream of updates cannot hold it off; it costs about what
 * optimize's merge costs, since LanceDB 0.39 merges by rewriting the whole index too. The scalar
 * indexes are left to the next compaction: a filter or a key lookup reads their few unindexed rows
 * directly, and rebuilding them each time added six commits and ~10 % to a merge.
 */
export async function mergeGenerationTable({ generation }: { generation: GenerationTable }): Promise<void> {
  const { table, language } = generation;
  await retryCommitConflict(() => table.createIndex("text", { config: ftsIndex(language), replace: true }));
}

/**
 * Brings the B-trees that writes and deletes find their rows by (document_id, chunk_id) up to date
 * by building them again, a commit each. For a table nobody searches yet (a generation being built):
 * without it, each replace scans every row written since the last optimize (~0.7 ms a batch of 50
 * documents per 1,000 rows: 600 ms at 850,000), while both B-trees are built again in ~1 s at
 * 1,000,000 rows, against ~40 s for a merge of the FTS index (bench/RESULTS.md, session 19). Each
 * commit waits for a compaction of the table in progress (its TableGate), whose commit it would preempt:
 * the rebuild optimizes its generation while the index's maintenance may refresh it.
 */
export async function refreshKeyIndexes({ generation }: { generation: GenerationTable }): Promise<void> {
  const { gate } = generation;
  for (const [column, config] of KEY_INDEXES) {
    await gate.write(() => retryCommitConflict(() => generation.table.createIndex(column, { config: config(), replace: true })));
  }
}

/**
 * Full maintenance of a generation's table: compacts the small fragments left by many commits, prunes
 * table versions older than `pruneOlderThan` (the current version is always kept) and merges the rows
 * written since the last merge into the indexes. Files of writes still in flight are protected by
 * LanceDB's own 7-day rule for unverified files, so this is safe while other workers write. It holds
 * the table's TableGate: the updating writes its gate covers wait until it commits (appends do not). A
 * table created before a scalar index was added to the package gets it here first.
 */
export async function optimizeGenerationTable({
  generation,
  pruneOlderThan,
}: {
  generation: GenerationTable;
  pruneOlderThan: Date;
}): Promise<{ fragmentsRemoved: number; versionsRemoved: number }> {
  await retryCommitConflict(() => addMissingScalarIndexes(generation.table));
  const stats = await generation.gate.alone(() =>
    retryCommitConflict(() => generation.table.optimize({ cleanupOlderThan: pruneOlderThan, deleteUnverified: false })),
  );
  return { fragmentsRemoved: stats.compaction.fragmentsRemoved, versionsRemoved: stats.prune.oldVersionsRemoved };
}
