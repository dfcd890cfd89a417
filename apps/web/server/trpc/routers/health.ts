import { cancelIndexRebuild, getIndexingHealth, listDeadLetterJobs, retryDeadLetterJobs, startIndexRebuild, summarizeIndexRebuild } from "@svc/core";
import {
  ConsoleRebuildStatusSchema,
  DEAD_LETTER_JOBS_LIMIT,
  DeadLetterListSchema,
  HealthOverviewSchema,
  RetryDeadLetterInputSchema,
  RetryDeadLetterResultSchema,
  StartRebuildInputSchema,
} from "@svc/schema";
import { webMetrics } from "../../observability/web-metrics";
import { adminProcedure, router, sessionProcedure, unscopedAdminProcedure } from "../init";

export const healthRouter = router({
  /** Search latency is this web process's (the window GET /api/metrics exports as `component="web"`). */
  overview: sessionProcedure.output(HealthOverviewSchema).query(({ ctx }) =>
    getIndexingHealth({
      db: ctx.db,
      boss: ctx.boss,
      index: ctx.index,
      principal: ctx.principal,
      searchLatency: webMetrics().searchLatency.read(),
    }),
  ),

  /** The dead-letter queue's jobs the principal may see (the one access rule, applied in core). */
  deadLetters: sessionProcedure
    .output(DeadLetterListSchema)
    .query(({ ctx }) => listDeadLetterJobs({ db: ctx.db, principal: ctx.principal, limit: DEAD_LETTER_JOBS_LIMIT })),

  /** Moves one dead-letter job, or all, back to its queue: an admin without scope (the queue is every pair's). */
  retryDeadLetter: unscopedAdminProcedure
    .input(RetryDeadLetterInputSchema)
    .output(RetryDeadLetterResultSchema)
    .mutation(({ ctx, input }) =>
      retryDeadLetterJobs({ db: ctx.db, boss: ctx.boss, principal: ctx.principal, jobIds: "jobId" in input ? [input.jobId] : null }),
    ),

  /** As POST /manage/admin/search-index/rebuild (an unscoped admin, checked in core); CONFLICT while one is running. */
  startRebuild: adminProcedure
    .input(StartRebuildInputSchema)
    .output(ConsoleRebuildStatusSchema)
    .mutation(async ({ ctx, input }) =>
      summarizeIndexRebuild(
        await startIndexRebuild({
          db: ctx.db,
          boss: ctx.boss,
          principal: ctx.principal,
          chunkTokenLimit: input.chunkTokenLimit,
          textSearchConfig: input.textSearchConfig,
        }),
      ),
    ),

  /** As DELETE /manage/admin/search-index/rebuild (`svc index cancel`): NOT_FOUND when none is running. */
  cancelRebuild: adminProcedure
    .output(ConsoleRebuildStatusSchema)
    .mutation(async ({ ctx }) => summarizeIndexRebuild(await cancelIndexRebuild({ db: ctx.db, boss: ctx.boss, principal: ctx.principal }))),
});
