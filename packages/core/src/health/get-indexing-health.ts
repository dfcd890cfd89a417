import type { Db } from "@svc/db";
import { FAILED_DOCUMENTS_LIMIT, INDEXED_PER_MINUTE_WINDOW, type HealthOverview } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { countFailedDocuments } from "../documents/count-failed-documents";
import { listFailedDocuments } from "../documents/list-failed-documents";
import { getQueueDepth } from "../jobs/get-queue-depth";
import type { PgBoss } from "../jobs/job-queue";
import { countDocumentsIndexedPerMinute } from "../indexing/count-documents-indexed-per-minute";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { summarizeIndexRebuild } from "../indexing/summarize-index-rebuild";
import { countPairsIndexing } from "../connectors/list-indexing-status";

/**
 * The console's indexing-health page in one call: queue depth, the pairs being indexed (as the
 * connectors listing counts them), documents indexed per minute over the last hour, the failed documents the principal may see (their number and the newest), and the index rebuild's progress.
 */
export async function getIndexingHealth({
  db,
  boss,
  principal,
  now = new Date(),
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  now?: Date;
}): Promise<HealthOverview> {
  const [queue, pairsIndexing, indexedPerMinute, failedDocumentCount, failedDocuments, rebuild] = await Promise.all([
    getQueueDepth({ boss }),
    countPairsIndexing({ db, principal }),
    countDocumentsIndexedPerMinute({ db, minutes: INDEXED_PER_MINUTE_WINDOW, now }),
    countFailedDocuments({ db, principal }),
    listFailedDocuments({ db, principal, limit: FAILED_DOCUMENTS_LIMIT }),
    getIndexRebuildStatus({ db }),
  ]);
  return { queue, pairsIndexing, indexedPerMinute, failedDocumentCount, failedDocuments, rebuild: summarizeIndexRebuild(rebuild) };
}
