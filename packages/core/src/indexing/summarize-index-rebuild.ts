import type { Camel, ConsoleRebuildStatus, IndexRebuildStatus } from "@svc/schema";

/** The index-rebuild status (GET /manage/admin/search-index/rebuild) as the console's health page shows it. */
export function summarizeIndexRebuild(status: Camel<IndexRebuildStatus>): ConsoleRebuildStatus {
  const { rebuild, current, lastRebuild: last } = status;
  return {
    status: status.status,
    generationId: rebuild?.generationId ?? null,
    docsDone: rebuild?.docsDone ?? 0,
    docsTotal: rebuild?.docsTotal ?? 0,
    docsFailed: rebuild?.docsFailed ?? 0,
    // When the rebuild was asked for: its job may still wait in the queue (startedAt null).
    startedAt: rebuild ? new Date(rebuild.createdAt) : null,
    current: {
      generationId: current.generationId,
      chunkTokenLimit: current.chunkTokenLimit,
      textSearchConfig: current.textSearchConfig,
    },
    lastRebuild: last
      ? {
          generationId: last.generationId,
          status: last.status,
          docsDone: last.docsDone,
          docsFailed: last.docsFailed,
          completedAt: last.completedAt === null ? null : new Date(last.completedAt),
        }
      : null,
  };
}
