import type { Db } from "@svc/db";
import { measureIndexFolder } from "@svc/search-index";
import { FAILED_DOCUMENTS_LIMIT, INDEXED_PER_MINUTE_WINDOW, WORKER_HEARTBEAT_MAX_AGE_SECONDS, type HealthOverview, type IndexSize, type SearchLatency } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { countFailedDocuments } from "../documents/count-failed-documents";
import { listFailedDocuments } from "../documents/list-failed-documents";
import { getQueueDepth } from "../jobs/get-queue-depth";
import type { PgBoss } from "../jobs/job-queue";
import { countDocumentsIndexedPerMinute } from "../indexing/count-documents-indexed-per-minute";
import { countDocumentsRebuiltPerMinute } from "../indexing/count-documents-rebuilt-per-minute";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { measureSearchIndex } from "../search-index/measure-search-index";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { summarizeIndexRebuild } from "../indexing/summarize-index-rebuild";
import { countPairsIndexing } from "../connectors/list-indexing-status";
import { listLiveWorkers } from "./worker-heartbeats";

/**
 * The console's indexing-health page in one call: queue depth, the pairs being indexed (as the
 * connectors listing counts them), documents indexed and rebuilt per
 * minute over the last hour, the failed documents the principal may see (their number and the
 * newest), the index rebuild's progress, the live workers, the index's size on disk, and the search
 * latency the caller measured (the web process's window, apps/web/server/observability).
 */
export async function getIndexingHealth({
  db,
  boss,
  index,
  principal,
  searchLatency,
  now = new Date(),
}: {
  db: Db;
  boss: PgBoss;
  index: SearchIndexTables;
  principal: Principal;
  searchLatency: SearchLatency;
  now?: Date;
}): Promise<HealthOverview> {
  const [queue, pairsIndexing, indexedPerMinute, rebuiltPerMinute, failedDocumentCount, failedDocuments, rebuild, liveWorkers, indexSize] = await Promise.all([
    getQueueDepth({ boss }),
    countPairsIndexing({ db, principal }),
    countDocumentsIndexedPerMinute({ db, minutes: INDEXED_PER_MINUTE_WINDOW, now }),
    countDocumentsRebuiltPerMinute({ db, minutes: INDEXED_PER_MINUTE_WINDOW, now }),
    countFailedDocuments({ db, principal }),
    listFailedDocuments({ db, principal, limit: FAILED_DOCUMENTS_LIMIT }),
    getIndexRebuildStatus({ db }),
    listLiveWorkers({ db, maxAgeSeconds: WORKER_HEARTBEAT_MAX_AGE_SECONDS }),
    readIndexSize({ db, index }),
  ]);
  return {
    queue,
    pairsIndexing,
    indexedPerMinute,
    rebuiltPerMinute,
    liveWorkers: liveWorkers.length,
    indexSize,
    searchLatency,
    failedDocumentCount,
    failedDocuments,
    rebuild: summarizeIndexRebuild(rebuild),
  };
}

/** The serving generation's table (as `svc index status` and GET /api/metrics count it) and the index directory. */
async function readIndexSize({ db, index }: { db: Db; index: SearchIndexTables }): Promise<IndexSize> {
  const [generations, folderBytes] = await Promise.all([measureSearchIndex({ db, index }), measureIndexFolder({ uri: index.uri })]);
  const current = generations.find((generation) => generation.status === "current");
  return {
    serving: current?.size ? { generationId: current.generationId, ...current.size } : null,
    folderBytes,
  };
}
