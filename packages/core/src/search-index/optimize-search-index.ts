import type { Db } from "@svc/db";
import { optimizeGenerationTable } from "@svc/search-index";
import { readActiveGenerations } from "./index-generations";
import type { SearchIndexTables } from "./search-index-tables";

/** LanceDB names the FTS index after its column (createGenerationTable builds it on `text`). */
const FTS_INDEX_NAME = "text_idx";

/**
 * The worker's background maintenance of the search index: each active generation's table with
 * rows written since its last merge is optimized (merged into the FTS index, so those rows rank
 * exactly and match phrases; small fragments compacted; versions older than `keepVersionsMs`
 * pruned). `force` optimizes every table (compaction and pruning after deletes, which leave no
 * unmerged rows). Several workers may run it at once: LanceDB's commit conflicts are retried.
 * Returns the generations optimized.
 */
export async function optimizeSearchIndex({
  db,
  index,
  keepVersionsMs = 10 * 60_000,
  force = false,
}: {
  db: Db;
  index: SearchIndexTables;
  keepVersionsMs?: number;
  force?: boolean;
}): Promise<number[]> {
  const optimized: number[] = [];
  const generations = await readActiveGenerations(db);
  for (const generation of generations) {
    const table = await index.readable(generation.id);
    if (table === null) continue;
    try {
      const unmerged = (await table.table.indexStats(FTS_INDEX_NAME))?.numUnindexedRows ?? 0;
      if (!force && unmerged === 0) continue;
      await optimizeGenerationTable({ generation: table, pruneOlderThan: new Date(Date.now() - keepVersionsMs) });
      optimized.push(generation.id);
    } catch (error) {
      index.forget(generation.id);
      throw error;
    }
  }
  return optimized;
}
