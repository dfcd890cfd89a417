import type { Db } from "@svc/db";
import { stampGenerationSearched } from "./index-generations";

/**
 * How often a process stamps a generation it searches: often enough for the worker's window
 * (MergeSchedule's `searchedWithinSeconds`), seldom enough that searches do not become writes.
 */
const STAMP_EVERY_MS = 5_000;

/** When this process last stamped each generation, per database handle (tests open several). */
const lastStamps = new WeakMap<Db, Map<number, number>>();

/**
 * Tells the worker a search read generation `generationId` (index_generation.last_searched_at), so it
 * keeps the generation's new rows merged while searches pay for them (optimize-search-index.ts). At
 * most one stamp every STAMP_EVERY_MS a process; it runs beside the search, which neither waits for
 * it nor fails with it: a stamp that fails is tried again by the next search.
 */
export function noteGenerationSearched(db: Db, generationId: number): void {
  let stamps = lastStamps.get(db);
  if (stamps === undefined) lastStamps.set(db, (stamps = new Map<number, number>()));
  const now = Date.now();
  if (now - (stamps.get(generationId) ?? -Infinity) < STAMP_EVERY_MS) return;
  stamps.set(generationId, now);
  void stampGenerationSearched(db, generationId).catch(() => stamps.delete(generationId));
}
