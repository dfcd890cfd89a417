import { cancelIndexRebuild, getIndexingHealth, startIndexRebuild, summarizeIndexRebuild } from "@svc/core";
import { ConsoleRebuildStatusSchema, HealthOverviewSchema, StartRebuildInputSchema } from "@svc/schema";
import { adminProcedure, router, sessionProcedure } from "../init";

export const healthRouter = router({
  overview: sessionProcedure
    .output(HealthOverviewSchema)
    .query(({ ctx }) => getIndexingHealth({ db: ctx.db, boss: ctx.boss, principal: ctx.principal })),

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
