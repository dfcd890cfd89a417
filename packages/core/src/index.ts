/**
 * @svc/core's public surface: the operations the apps (web, worker, cli) and their tests call, and
 * the few types and constants those calls take. Modules stay private to the package; a new export is
 * an operation an app needs, not a helper.
 */

// Errors: the one error type and its code table.
export { AppError, isAppError, type AppErrorCode } from "./errors/app-error";
export { toAppError } from "./errors/to-app-error";

// Authentication and access.
export { ADMIN_ROLES, OPERATOR_PRINCIPAL, requireRole, requireUnscopedAdmin, type Principal } from "./auth/principal";
export { API_KEY_CHANGES_CHANNEL, ApiKeyCache } from "./auth/api-key-cache";
export { hashApiKey } from "./auth/api-key-secret";
export { authenticateApiKey, recentlyResolvedApiKey } from "./auth/authenticate-api-key";
export { ApiKeyUseRecorder } from "./auth/record-api-key-use";
export { countActiveApiKeys, createApiKey, listApiKeys, revokeApiKey } from "./auth/manage-api-keys";
export { hashAdminSessionToken } from "./auth/admin-session-token";
export { createAdminSession } from "./auth/create-admin-session";
export { authenticateAdminSession } from "./auth/authenticate-admin-session";
export { endAdminSession } from "./auth/end-admin-session";

// Connector-credential pairs.
export { DEFAULT_CC_PAIR_ID } from "./model/default-pair";
export { createCcPair } from "./connectors/create-cc-pair";
export { getCcPair } from "./connectors/get-cc-pair";
export { getPairIndexingSummary } from "./documents/get-pair-indexing-summary";
export { updateCcPair } from "./connectors/update-cc-pair";
export { deleteCcPair } from "./connectors/delete-cc-pair";
export { purgeCcPair } from "./connectors/purge-cc-pair";
export { createFederatedConnector, deleteFederatedConnector } from "./connectors/manage-federated-connectors";
export { listIndexingStatus } from "./connectors/list-indexing-status";
export { listIndexAttempts } from "./connectors/list-index-attempts";

// Documents.
export { ingestDocument } from "./documents/ingest-document";
export { ingestDocuments } from "./documents/ingest-documents";
export { getDocument } from "./documents/get-document";
export { getDocumentWithChunks } from "./documents/get-document-with-chunks";
export { deleteDocument } from "./documents/delete-document";
export { retryDocumentIndexing } from "./documents/retry-document-indexing";
export { retryPairFailedDocuments } from "./documents/retry-pair-failed-documents";
export { listPairDocumentStatuses } from "./documents/list-pair-document-statuses";
export { countFailedDocuments } from "./documents/count-failed-documents";
export { countFailedDocumentsPerPair } from "./documents/count-failed-documents-per-pair";
export { listIngestedDocuments } from "./documents/list-ingested-documents";
export { listCcPairDocuments } from "./documents/list-cc-pair-documents";
export { streamIngestedDocuments } from "./documents/stream-ingested-documents";
export { streamCcPairDocuments } from "./documents/stream-cc-pair-documents";

// Uploaded files.
export { deleteUploadedFile, uploadFiles, type IncomingFile } from "./files/upload-files";
export { uploadProjectFiles } from "./files/upload-project-files";
export { listUploadedFiles } from "./files/list-uploaded-files";
export { readUploadedFile } from "./files/read-uploaded-file";

// Search.
export { searchDocuments } from "./search/search-documents";

// Indexing, index rebuilds, health.
export { indexDocuments } from "./indexing/index-documents";
export type { IndexedDocument } from "./indexing/document-rows";
export { closeDrainedAttempts, endOrphanedAttempts, type AttemptWindow } from "./indexing/index-attempts";
export { purgeExpiredEvents } from "./events/event-rows";
export { EventHub } from "./events/event-hub";
export { openEventStream, type EventStreamMessage } from "./events/open-event-stream";
export { startIndexRebuild } from "./search-index/start-index-rebuild";
export { getIndexRebuildStatus } from "./search-index/get-index-rebuild-status";
export { measureSearchIndex, type GenerationIndexSize } from "./search-index/measure-search-index";
export { cancelIndexRebuild } from "./indexing/cancel-index-rebuild";
export { runIndexRebuild } from "./indexing/run-index-rebuild";
export { summarizeIndexRebuild } from "./indexing/summarize-index-rebuild";
export { purgeIndexGeneration } from "./indexing/purge-index-generation";
export { advisoryTableGates } from "./search-index/advisory-table-gates";
export { closeSearchIndexAt, searchIndexAt, type SearchIndexTables } from "./search-index/search-index-tables";
export { ensureSearchIndex } from "./indexing/ensure-search-index";
export { MergeSchedule } from "./search-index/merge-schedule";
export { optimizeSearchIndex, type GenerationMaintenance } from "./search-index/optimize-search-index";
export { getIndexingHealth } from "./health/get-indexing-health";
export { listDeadLetterJobs } from "./health/list-dead-letter-jobs";
export { retryDeadLetterJobs } from "./health/retry-dead-letter-jobs";
export { checkReadiness } from "./health/check-readiness";
export { readInstanceId } from "./health/read-instance-id";
export { listLiveWorkers, recordWorkerHeartbeat, removeWorkerHeartbeat, type HeartbeatRole, type WorkerIdentity } from "./health/worker-heartbeats";
export { getIndexingQueueDepth } from "./jobs/get-indexing-queue-depth";
export { readMetricCounts } from "./health/read-metric-counts";

// Webhooks.
export { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints } from "./webhooks/manage-webhook-endpoints";
export { listWebhookDeliveries, purgeFinishedWebhookDeliveries, resendWebhookDelivery } from "./webhooks/webhook-deliveries";
export { startWebhookDelivery } from "./webhooks/run-webhook-delivery";

// Logs and process metrics.
export { createLogger, type Logger } from "./observability/create-logger";
export { registerResidentMemory } from "./observability/resident-memory";

// Jobs and set-up.
export { deleteCcPairJob, indexDocumentJob, purgeIndexGenerationJob, rebuildIndexJob, type IndexDocumentPayload } from "./jobs/catalog";
export { installJobQueues, startJobQueue, workJobs, type PgBoss, type ReceivedJob } from "./jobs/job-queue";
export { prepareDatabase } from "./setup/prepare-database";
export { isDatabasePrepared } from "./setup/is-database-prepared";
