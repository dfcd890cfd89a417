import { MergeSchedule, optimizeSearchIndex, type Logger, type SearchIndexTables } from "@svc/core";
import type { Db } from "@svc/db";
import type { WorkerEnv } from "./env";
import type { WorkerMetrics } from "./worker-metrics";

/**
 * The search index's background maintenance: every SVC_INDEX_OPTIMIZE_SECONDS, the active generations' tables
 * that have rows written since their last merge are merged into the FTS index when `schedule` says
 * so (so they rank exactly and match phrases, and every query scans fewer unmerged rows); every
 * SVC_INDEX_COMPACT_SECONDS, all of them are compacted and their old versions pruned. One run at a time; a
 * failure is logged and the next tick tries again.
 */
export function startIndexMaintenance({
  db,
  index,
  env,
  metrics,
  onMerged,
  logger,
}: {
  db: Db;
  index: SearchIndexTables;
  env: Pick<WorkerEnv, "SVC_INDEX_OPTIMIZE_SECONDS" | "SVC_INDEX_COMPACT_SECONDS" | "SVC_INDEX_MERGE_ROWS">;
  metrics: WorkerMetrics;
  onMerged: () => void;
  logger: Logger;
}): { stop: () => Promise<void> } {
  const optimizeSeconds = env.SVC_INDEX_OPTIMIZE_SECONDS;
  const compactSeconds = env.SVC_INDEX_COMPACT_SECONDS;
  const schedule = new MergeSchedule({ tailRows: env.SVC_INDEX_MERGE_ROWS, tailShare: 0.05, searchedWithinSeconds: 60, quietSeconds: 10 });
  let running: Promise<void> | null = null;
  let lastFull = Date.now();
  const tick = () => {
    if (running) return;
    const force = Date.now() - lastFull >= compactSeconds * 1000;
    if (force) lastFull = Date.now();
    running = optimizeSearchIndex({ db, index, force, schedule })
      .then(
        (generations) => {
          metrics.recordIndexMaintenance(generations);
          if (generations.some(({ seconds }) => seconds !== null)) onMerged();
        },
        (error: unknown) => logger.error({ error: (error as Error).message }, "search index maintenance failed"),
      )
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, optimizeSeconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
