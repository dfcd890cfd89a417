import type { Db } from "@svc/db";
import { mergeGenerationTable, optimizeGenerationTable, refreshKeyIndexes, type GenerationTable } from "@svc/search-index";
import { readMaintainedGenerations } from "./index-generations";
import type { MergeSchedule, TableRows } from "./merge-schedule";
import type { SearchIndexTables } from "./search-index-tables";

/** LanceDB names an index after its column (createGenerationTable builds these on `text` and `document_id`). */
const FTS_INDEX_NAME = "text_idx";
const KEY_INDEX_NAME = "document_id_idx";

/**
 * Small fragments (about one per commit) a table gathers before it is compacted between the forced
 * runs. Every search reads each one: at 100,000 rows, 128 of them added ~1.5 ms to a word's top 10 and
 * 512 ~5 ms; a compaction holds back this worker's updating writes while it runs (bench/RESULTS.md,
 * session 15).
 */
const COMPACT_AT_SMALL_FRAGMENTS = 128;

/** One generation's table as a maintenance run found it. */
export interface GenerationMaintenance {
  generationId: number;
  /** Rows written since the table's last merge (queries scan them instead of reading the FTS index). */
  unmergedRows: number;
  /**
   * What the run did to the table: merged its new rows, compacted it (and merged), brought only its
   * key B-trees up to date (a generation being built: refreshKeyIndexes), or nothing.
   */
  action: "merge" | "compaction" | "keys" | null;
  /** How long that took, or null when it did nothing. */
  seconds: number | null;
}

/**
 * The worker's background maintenance of the search index. Each active generation's table with rows
 * written since its last merge has them merged into its FTS index (so they rank exactly and match
 * phrases, and searches scan fewer unmerged rows), when `schedule` says so (every time without one):
 * mergeGenerationTable, which commits beside concurrent writes. Such a table with
 * COMPACT_AT_SMALL_FRAGMENTS small fragments, or every table when `force`, is optimized instead:
 * compacted, merged, versions older than `keepVersionsMs` pruned. Several workers may run it at once:
 * LanceDB's commit conflicts are retried. Returns, for each active generation whose table is there,
 * the rows not yet merged once the run is done with it (those written meanwhile), what it did and how
 * long that took.
 *
 * With a schedule, a generation being built is neither merged nor compacted: nobody searches it, the
 * rebuild optimizes it once before the swap, and each merge on the way rebuilt the whole FTS index
 * (at 1 M chunks they took half the rebuild's time: bench/RESULTS.md, session 19). Only its key
 * B-trees are brought up to date, on the same schedule, so that replaces into it stay cheap. While
 * this process indexes a large document (`index.holdMerges`), a due merge waits (MergeSchedule).
 */
export async function optimizeSearchIndex({
  db,
  index,
  keepVersionsMs = 10 * 60_000,
  force = false,
  schedule,
}: {
  db: Db;
  index: SearchIndexTables;
  keepVersionsMs?: number;
  force?: boolean;
  schedule?: MergeSchedule;
}): Promise<GenerationMaintenance[]> {
  const maintained: GenerationMaintenance[] = [];
  const generations = await readMaintainedGenerations(db, schedule?.options.searchedWithinSeconds ?? 0);
  for (const generation of generations) {
    const table = await index.readable(generation.id);
    if (table === null) continue;
    try {
      const rows = await countRows(table);
      const action = await chooseAction(table, generation, rows, { force, schedule, held: index.mergesHeld });
      if (action === null) {
        maintained.push({ generationId: generation.id, unmergedRows: rows.unmerged, action, seconds: null });
        continue;
      }
      const started = performance.now();
      if (action === "compaction") {
        await optimizeGenerationTable({ generation: table, pruneOlderThan: new Date(Date.now() - keepVersionsMs) });
      } else if (action === "merge") {
        await mergeGenerationTable({ generation: table });
      } else {
        await refreshKeyIndexes({ generation: table });
      }
      const seconds = (performance.now() - started) / 1000;
      maintained.push({ generationId: generation.id, unmergedRows: (await countRows(table)).unmerged, action, seconds });
    } catch (error) {
      index.forget(generation.id);
      throw error;
    }
  }
  return maintained;
}

/** What a maintenance run does to one generation's table, whose FTS index has `rows` (see optimizeSearchIndex). */
async function chooseAction(
  table: GenerationTable,
  generation: { id: number; searched: boolean; building: boolean },
  rows: TableRows,
  { force, schedule, held }: { force: boolean; schedule: MergeSchedule | undefined; held: boolean },
): Promise<GenerationMaintenance["action"]> {
  if (force) return "compaction";
  if (schedule === undefined) return rows.unmerged > 0 ? "merge" : null;
  if (generation.building) return schedule.due(generation.id, await countRows(table, KEY_INDEX_NAME), false) ? "keys" : null;
  if (!schedule.due(generation.id, rows, generation.searched, Date.now(), held)) return null;
  // Fragments come with new rows, so a table not merged now is not asked for its fragment statistics.
  return (await countSmallFragments(table)) >= COMPACT_AT_SMALL_FRAGMENTS ? "compaction" : "merge";
}

/** The table's rows, and those written since index `indexName` was last brought up to date. */
async function countRows(table: GenerationTable, indexName = FTS_INDEX_NAME): Promise<TableRows> {
  const stats = await table.table.indexStats(indexName);
  const unmerged = stats?.numUnindexedRows ?? 0;
  return { unmerged, total: (stats?.numIndexedRows ?? 0) + unmerged };
}

async function countSmallFragments(table: GenerationTable): Promise<number> {
  return (await table.table.stats()).fragmentStats.numSmallFragments;
}
