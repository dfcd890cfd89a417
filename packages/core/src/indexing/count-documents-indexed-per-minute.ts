import { querySql, type Db } from "@svc/db";
import type { IndexedPerMinute } from "@svc/schema";

const MINUTE_MS = 60_000;

/**
 * Documents whose latest indexing finished in each of the last `minutes` whole minutes (the current,
 * partial one included), oldest first, zeros included so a chart has no gaps. One range scan of the
 * `document (indexed_at)` index; a document re-indexed later counts at its latest time only.
 */
export async function countDocumentsIndexedPerMinute({
  db,
  minutes = 60,
  now = new Date(),
}: {
  db: Db;
  minutes?: number;
  now?: Date;
}): Promise<IndexedPerMinute[]> {
  return countPerMinute(db, { minutes, now }, (first) => ({
    text: `SELECT date_trunc('minute', indexed_at) AS minute, count(*)::int AS count
      FROM document WHERE indexed_at >= $1
      GROUP BY 1`,
    values: [first],
  }));
}

/**
 * Runs a per-minute count (rows of `minute` and `count`, from the first minute given on) and fills
 * the last `minutes` whole minutes with it, oldest first, a minute without rows as 0.
 */
export async function countPerMinute(
  db: Db,
  { minutes, now }: { minutes: number; now: Date },
  statement: (first: Date) => { text: string; values: unknown[] },
): Promise<IndexedPerMinute[]> {
  const currentMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const first = currentMinute - (minutes - 1) * MINUTE_MS;
  const rows = await querySql<{ minute: Date; count: number }>(db, statement(new Date(first)));
  const counts = new Map(rows.map((row) => [row.minute.getTime(), row.count]));
  return Array.from({ length: minutes }, (_, index) => {
    const minute = first + index * MINUTE_MS;
    return { minute: new Date(minute), count: counts.get(minute) ?? 0 };
  });
}
