import type { ConsoleRebuildStatus, IndexRebuildStatus } from "@svc/schema";

/** The index-rebuild status (GET /manage/admin/search-index/rebuild) as the console's health page shows it. */
export function summarizeIndexRebuild(status: IndexRebuildStatus): ConsoleRebuildStatus {
  const { rebuild, current, last_rebuild: last } = status;
  return {
    status: status.status,
    generationId: rebuild?.generation_id ?? null,
    docsDone: rebuild?.docs_done ?? 0,
    docsTotal: rebuild?.docs_total ?? 0,
    docsFailed: rebuild?.docs_failed ?? 0,
    // When the rebuild was asked for: its job may still wait in the queue (started_at null).
    startedAt: rebuild ? new Date(rebuild.created_at) : null,
    current: {
      generationId: current.generation_id,
      chunkTokenLimit: current.chunk_token_limit,
      textSearchConfig: current.text_search_config,
    },
    lastRebuild: last
      ? {
          generationId: last.generation_id,
          status: last.status,
          docsDone: last.docs_done,
          docsFailed: last.docs_failed,
          completedAt: last.completed_at === null ? null : new Date(last.completed_at),
        }
      : null,
  };
}
