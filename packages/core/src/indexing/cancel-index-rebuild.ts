import type { Db } from "@svc/db";
import type { Camel, IndexRebuildStatus } from "@svc/schema";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { syncLastAttemptStatus } from "./cc-pair-rows";
import { endGenerationAttempts, lockGenerationAttemptPairs } from "./index-attempts";
import { purgeIndexGenerationJob } from "../jobs/catalog";
import { deleteRebuildFailures } from "./rebuild-failures";
import { recordRebuildFinishedEvent } from "../events/event-rows";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { lockIndexGenerationsExclusive, markGenerationCanceled } from "../search-index/index-generations";

/**
 * Cancels the running rebuild, in one transaction: its generation becomes `canceled` (indexing stops
 * writing to it, its job stops at its next batch), its open index attempts end `canceled` and from
 * then on count as their pairs' attempts (a pair's latest attempt reads `canceled`; its last success
 * and the documents' states do not change), and a `purge-index-generation` job is queued for its chunks. Only an unscoped admin may (403); 404 when no rebuild is running.
 */
export async function cancelIndexRebuild({
  db,
  boss,
  principal,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
}): Promise<Camel<IndexRebuildStatus>> {
  requireUnscopedAdmin(principal);
  await db.$transaction(async (tx) => {
    await lockIndexGenerationsExclusive(tx);
    const building = await tx.indexGeneration.findFirst({ where: { status: "building" }, select: { id: true } });
    if (!building) throw new AppError("NOT_FOUND", "No rebuild of the search index is running.");
    const pairIds = await lockGenerationAttemptPairs(tx, building.id);
    await markGenerationCanceled(tx, building.id);
    await endGenerationAttempts(tx, building.id, "canceled");
    await deleteRebuildFailures(tx, building.id);
    await syncLastAttemptStatus(tx, pairIds);
    await recordRebuildFinishedEvent(tx, { generationId: building.id, status: "canceled" });
    await sendJob(boss, purgeIndexGenerationJob, { generationId: building.id }, { tx });
  });
  return getIndexRebuildStatus({ db });
}
