import type { Db } from "@svc/db";
import { optimizeGenerationTable, type GenerationTable } from "@svc/search-index";
import { readActiveGenerations } from "./index-generations";
import type { SearchIndexTables } from "./search-index-tables";

/** LanceDB names the FTS index after its column (createGenerationTable builds it on `text`). */
const FTS_INDEX_NAME = "text_idx";

/** One generation's table as a maintenance run found it. */
export interface GenerationMaintenance {
  generationId: number;
  /** Rows written since the table's last merge (queries scan them instead of reading the FTS index). */
  unmergedRows: number;
  /** How long its optimize took, or null when it had nothing to merge (and compaction was not due). */
  seconds: number | null;
}

/**
 * The worker's background maintenance of the search index: each active generation's table with
 * rows written since its last merge is optimized (merged into the FTS index, so those rows rank
 * exactly and match phrases; small fragments compacted; versions older than `keepVersionsMs`
 * pruned). `force` optimizes every table (compaction and pruning after deletes, which leave no
 * unmerged rows). Several workers may run it at once: LanceDB's commit conflicts are retried.
 * Returns, for each active generation whose table is there, the rows not yet merged once the run is
 * done with it (those written during its optimize) and how long that optimize took (null when there
 * was nothing to do).
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
}): Promise<GenerationMaintenance[]> {
  const maintained: GenerationMaintenance[] = [];
  const generations = await readActiveGenerations(db);
  for (const generation of generations) {
    const table = await index.readable(generation.id);
    if (table === null) continue;
    try {
      const unmerged = await countUnmergedRows(table);
      if (!force && unmerged === 0) {
        maintained.push({ generationId: generation.id, unmergedRows: unmerged, seconds: null });
        continue;
      }
      const started = performance.now();
      await optimizeGenerationTable({ generation: table, pruneOlderThan: new Date(Date.now() - keepVersionsMs) });
      const seconds = (performance.now() - started) / 1000;
      maintained.push({ generationId: generation.id, unmergedRows: await countUnmergedRows(table), seconds });
    } catch (error) {
      index.forget(generation.id);
      throw error;
    }
  }
  return maintained;
}

async function countUnmergedRows(table: GenerationTable): Promise<number> {
  return (await table.table.indexStats(FTS_INDEX_NAME))?.numUnindexedRows ?? 0;
}
