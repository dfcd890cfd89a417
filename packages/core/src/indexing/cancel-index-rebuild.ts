import type { Db } from "@svc/db";
import type { IndexRebuildStatus } from "@svc/schema";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { deleteGenerationAttempts } from "./index-attempts";
import { purgeIndexGenerationJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { lockIndexGenerationsExclusive } from "../search-index/index-generations";

/**
 * Cancels the running rebuild, in one transaction: its generation becomes `canceled` (indexing stops
 * writing to it, its job stops at its next batch), its index attempts are deleted (they never counted
 * for any pair: the listing's current fields do not change), and a `purge-index-generation` job is
 * queued for its chunks. Only an unscoped admin may (403); 404 when no rebuild is running.
 */
export async function cancelIndexRebuild({
  db,
  boss,
  principal,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
}): Promise<IndexRebuildStatus> {
  requireUnscopedAdmin(principal);
  await db.$transaction(async (tx) => {
    await lockIndexGenerationsExclusive(tx);
    const building = await tx.indexGeneration.findFirst({ where: { status: "building" }, select: { id: true } });
    if (!building) throw new AppError("NOT_FOUND", "No rebuild of the search index is running.");
    await tx.indexGeneration.update({ where: { id: building.id }, data: { status: "canceled", completedAt: new Date() } });
    await deleteGenerationAttempts(tx, building.id);
    await sendJob(boss, purgeIndexGenerationJob, { generationId: building.id }, { tx });
  });
  return getIndexRebuildStatus({ db });
}
