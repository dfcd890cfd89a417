import type { Db } from "@svc/db";
import type { IndexedPerMinute } from "@svc/schema";
import { countPerMinute } from "./count-documents-indexed-per-minute";

/**
 * Documents an index rebuild wrote into its generation in each of the last `minutes` whole minutes
 * (every rebuild's, from `index_rebuild_minute`), shaped as countDocumentsIndexedPerMinute's series so
 * the health chart plots the two side by side. A rebuild's documents are not in the indexing series:
 * it does not touch `document.indexed_at`.
 */
export async function countDocumentsRebuiltPerMinute({
  db,
  minutes = 60,
  now = new Date(),
}: {
  db: Db;
  minutes?: number;
  now?: Date;
}): Promise<IndexedPerMinute[]> {
  return countPerMinute(db, { minutes, now }, (first) => ({
    text: `SELECT minute, sum(docs_done)::int AS count FROM index_rebuild_minute WHERE minute >= $1 GROUP BY 1`,
    values: [first],
  }));
}
