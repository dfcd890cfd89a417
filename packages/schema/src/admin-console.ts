/**
 * Inputs and outputs of the admin console's tRPC procedures (apps/web/server/trpc), and the shapes
 * core returns for them. The rule (ARCHITECTURE.md, "Names on the wire and in the code"): a procedure
 * that does what a REST endpoint does reuses that endpoint's schemas, snake_case wire shape and all;
 * every shape here is console-only and camelCase, and its dates travel as `Date` (the tRPC
 * transformer is superjson). A procedure passes core's result through, it never renames fields.
 */
import { z } from "zod";
import { ApiKeyRoleSchema } from "./api-key";
import { SettableCcPairStatusSchema } from "./cc-pair";
import { decodeDocumentCursor } from "./document-cursor";
import { IndexingStatusSchema } from "./indexing-status";
import { DocumentIndexingStatusSchema } from "./ingestion";
import { DocumentDetailSchema, MAX_DOCUMENT_PAGE_SIZE, DEFAULT_DOCUMENT_PAGE_SIZE } from "./ingested-document";
import { UserFileSchema } from "./file-upload";
import { INT4_MAX } from "./pydantic-fields";
import { IndexGenerationStatusSchema, MAX_CHUNK_TOKEN_LIMIT, MIN_CHUNK_TOKEN_LIMIT } from "./search-index";
import { CcPairSchema, CreateCcPairRequestSchema, CreatedCcPairSchema } from "./cc-pair";
import { ConnectorIndexingStatusResponseSchema } from "./indexing-status";
import { DocMinimalInfoPageSchema } from "./ingested-document";
import { SearchResponseSchema } from "./search";
import { CreatedWebhookEndpointSchema, WebhookDeliverySchema, WebhookEndpointSchema } from "./webhook";
import { camelSchema } from "./wire-case";

// Ids are PostgreSQL int4.
const IdSchema = z.int().min(1).max(INT4_MAX);

export const OkSchema = z.object({ ok: z.literal(true) });
export type Ok = z.infer<typeof OkSchema>;

// ---- session ----

export const SignInInputSchema = z.object({
  apiKey: z.string().trim().min(1, "Paste an API key."),
});
export type SignInInput = z.infer<typeof SignInInputSchema>;

/** Who is signed in: the principal of the key the session was opened with. */
export const SessionUserSchema = z.object({
  name: z.string(),
  role: ApiKeyRoleSchema,
  scopeCcPairIds: z.array(z.int()).nullable(),
});
export type SessionUser = z.infer<typeof SessionUserSchema>;

// ---- connectors ----

export const CcPairIdInputSchema = z.object({ ccPairId: IdSchema });
export type CcPairIdInput = z.infer<typeof CcPairIdInputSchema>;

export const DEFAULT_ATTEMPTS_LIMIT = 50;
export const MAX_ATTEMPTS_LIMIT = 500;

export const ConnectorAttemptsInputSchema = z.object({
  ccPairId: IdSchema,
  limit: z.int().min(1).max(MAX_ATTEMPTS_LIMIT).default(DEFAULT_ATTEMPTS_LIMIT),
});
export type ConnectorAttemptsInput = z.input<typeof ConnectorAttemptsInputSchema>;

/** One index attempt of a pair, as the connector page's history and chart show it. */
export const IndexAttemptSummarySchema = z.object({
  id: z.int(),
  status: IndexingStatusSchema,
  docsIndexed: z.int(),
  docsFailed: z.int(),
  errorMessage: z.string().nullable(),
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  /** The index generation the attempt wrote into, once index rebuilds exist. */
  generationId: z.int().nullable().optional(),
  /** An index rebuild's attempt: it does not move the pair's last success nor its repeated error state. */
  rebuild: z.boolean(),
});
export type IndexAttemptSummary = z.infer<typeof IndexAttemptSummarySchema>;

/**
 * A page of a pair's documents; `cursor` is a `next_cursor` of this listing (null or absent: the first
 * page). Comes out as the id the page starts after.
 */
export const ConnectorDocumentsInputSchema = z.object({
  ccPairId: IdSchema,
  limit: z.int().min(1).max(MAX_DOCUMENT_PAGE_SIZE).default(DEFAULT_DOCUMENT_PAGE_SIZE),
  cursor: z
    .string()
    .nullish()
    .transform((cursor, ctx) => {
      if (!cursor) return null;
      const lastId = decodeDocumentCursor(cursor);
      if (lastId === null) {
        ctx.addIssue({ code: "custom", message: "cursor is not a next_cursor of this listing" });
        return z.NEVER;
      }
      return lastId;
    }),
});
export type ConnectorDocumentsInput = z.input<typeof ConnectorDocumentsInputSchema>;

/**
 * The pair page's document filter. `queued` takes every document still waiting for its indexing
 * (`queued` or `indexing`); `failed` is the one definition of failed (docs/decisions.md, "Failed").
 */
export const PairDocumentFilterSchema = z.enum(["indexed", "queued", "failed"]);
export type PairDocumentFilter = z.infer<typeof PairDocumentFilterSchema>;

/** Longest name/id search of a pair's documents, in characters (it scans the pair's documents). */
export const MAX_PAIR_DOCUMENT_QUERY_LENGTH = 200;

/** The columns a pair's documents can be ordered by; the document id breaks ties (and is the default order). */
export const PairDocumentSortColumnSchema = z.enum(["id", "name", "status", "tries", "updated"]);
export type PairDocumentSortColumn = z.infer<typeof PairDocumentSortColumnSchema>;

export const PairDocumentSortSchema = z.object({
  column: PairDocumentSortColumnSchema,
  direction: z.enum(["asc", "desc"]),
});
export type PairDocumentSort = z.infer<typeof PairDocumentSortSchema>;

/**
 * `query` keeps the documents whose name (semantic identifier) or id contains it, case aside; `sort`
 * orders them (none: by id). A cursor belongs to the query and order it came from.
 */
export const PairDocumentStatusesInputSchema = ConnectorDocumentsInputSchema.extend({
  status: PairDocumentFilterSchema.nullish(),
  query: z
    .string()
    .trim()
    .max(MAX_PAIR_DOCUMENT_QUERY_LENGTH)
    .refine((query) => !query.includes("\u0000"), "query must not hold NUL")
    .nullish()
    .transform((query) => query || null),
  sort: PairDocumentSortSchema.nullish().transform((sort) => sort ?? null),
});
export type PairDocumentStatusesInput = z.input<typeof PairDocumentStatusesInputSchema>;

/** A document of a pair with where its indexing stands, and why it failed. */
export const PairDocumentStatusSchema = z.object({
  documentId: z.string(),
  semanticId: z.string(),
  link: z.string().nullable(),
  indexingStatus: DocumentIndexingStatusSchema,
  lastError: z.string().nullable(),
  /** Tries of the current version since it was written or last retried. */
  attempts: z.int(),
  updatedAt: z.date(),
});
export type PairDocumentStatus = z.infer<typeof PairDocumentStatusSchema>;

export const PairDocumentStatusPageSchema = z.object({
  documents: z.array(PairDocumentStatusSchema),
  /** The cursor of the next page (the same encoding as the REST listing's `next_cursor`); null on the last page. */
  nextCursor: z.string().nullable(),
});
export type PairDocumentStatusPage = z.infer<typeof PairDocumentStatusPageSchema>;

/** A pair's indexing at a glance: the listing's error state and its documents by status. */
export const PairIndexingSummarySchema = z.object({
  inRepeatedErrorState: z.boolean(),
  documents: z.object({ indexed: z.int(), queued: z.int(), failed: z.int() }),
});
export type PairIndexingSummary = z.infer<typeof PairIndexingSummarySchema>;

/** The listing's failed documents: per pair shown, and in all (the health page's number). */
/** Most pair ids a console request may list (the failed-document counts, a new key's scope). */
export const MAX_CONSOLE_PAIR_IDS = 1000;
export const FailedDocumentCountsInputSchema = z.object({ ccPairIds: z.array(IdSchema).max(MAX_CONSOLE_PAIR_IDS) });
export type FailedDocumentCountsInput = z.infer<typeof FailedDocumentCountsInputSchema>;

export const FailedDocumentCountsSchema = z.object({
  total: z.int(),
  byPair: z.array(z.object({ ccPairId: z.int(), failed: z.int() })),
});
export type FailedDocumentCounts = z.infer<typeof FailedDocumentCountsSchema>;

export const RetryPairDocumentsResultSchema = z.object({
  /** Failed documents sent to indexing again. */
  retried: z.int(),
  /** Failed documents left alone: they also belong to a pair the key may not change. */
  skipped: z.int(),
});
export type RetryPairDocumentsResult = z.infer<typeof RetryPairDocumentsResultSchema>;

export const UpdateConnectorInputSchema = z.object({
  ccPairId: IdSchema,
  name: z.string().trim().min(1).optional(),
  status: SettableCcPairStatusSchema.optional(),
});
export type UpdateConnectorInput = z.infer<typeof UpdateConnectorInputSchema>;

export const FederatedConnectorIdInputSchema = z.object({ id: IdSchema });
export type FederatedConnectorIdInput = z.infer<typeof FederatedConnectorIdInputSchema>;

// ---- documents ----

export const DocumentIdInputSchema = z.object({ documentId: z.string().min(1) });
export type DocumentIdInput = z.infer<typeof DocumentIdInputSchema>;

/** A chunk of the search index, as the document page lists it. */
export const DocumentChunkSchema = z.object({
  chunkIndex: z.int(),
  content: z.string(),
  tokenCount: z.int(),
  imageFileId: z.string().nullable(),
  link: z.string().nullable(),
});
export type DocumentChunk = z.infer<typeof DocumentChunkSchema>;

/** The REST document body plus the chunks the index holds for it (the console takes its camelSchema). */
export const DocumentWithChunksSchema = DocumentDetailSchema.extend({
  chunks: z.array(DocumentChunkSchema),
});
export type DocumentWithChunks = z.infer<typeof DocumentWithChunksSchema>;

// ---- health ----

/**
 * The job queues. Failed jobs are not counted here: a document whose indexing gave up is a failed
 * document (HealthOverview.failedDocumentCount), the one number of failure the console shows.
 */
export const QueueDepthSchema = z.object({
  queued: z.int(),
  /** Of the queued jobs, those waiting for a retry after a failed run (their documents may read failed meanwhile). */
  retrying: z.int(),
  active: z.int(),
  deadLetter: z.int(),
});
export type QueueDepth = z.infer<typeof QueueDepthSchema>;

export const INDEXED_PER_MINUTE_WINDOW = 60;

export const IndexedPerMinuteSchema = z.object({
  minute: z.date(),
  count: z.int(),
});
export type IndexedPerMinute = z.infer<typeof IndexedPerMinuteSchema>;

export const FAILED_DOCUMENTS_LIMIT = 50;

export const FailedDocumentSchema = z.object({
  documentId: z.string(),
  semanticId: z.string(),
  lastError: z.string().nullable(),
  attempts: z.int(),
  updatedAt: z.date(),
});
export type FailedDocument = z.infer<typeof FailedDocumentSchema>;

/**
 * The index rebuild as the health page shows it (a summary of the REST IndexRebuildStatus): the
 * generation being built and its progress (zeros and nulls when idle), and the serving generation.
 */
export const ConsoleRebuildStatusSchema = z.object({
  status: z.enum(["idle", "building"]),
  generationId: z.int().nullable(),
  docsDone: z.int(),
  docsTotal: z.int(),
  docsFailed: z.int(),
  /** When the rebuild was started (its job may still be waiting). */
  startedAt: z.date().nullable(),
  current: z.object({
    generationId: z.int(),
    chunkTokenLimit: z.int(),
    textSearchConfig: z.string(),
  }),
  /** The last rebuild that ended: swapped in (`current`, later `retired`) or `canceled`; null when none has. */
  lastRebuild: z
    .object({
      generationId: z.int(),
      status: IndexGenerationStatusSchema,
      docsDone: z.int(),
      docsFailed: z.int(),
      completedAt: z.date().nullable(),
    })
    .nullable(),
});
export type ConsoleRebuildStatus = z.infer<typeof ConsoleRebuildStatusSchema>;

/**
 * The search index on disk: the serving generation's table as LanceDB counts it (the figures `svc
 * index status` and GET /api/metrics show), and every file under the index directory.
 */
export const IndexSizeSchema = z.object({
  /** Null while the index has no table for the serving generation (a refill has not written it yet). */
  serving: z
    .object({
      generationId: z.int(),
      documents: z.int(),
      chunks: z.int(),
      /** The data, index and overlay files of the table's current version. */
      bytes: z.number(),
    })
    .nullable(),
  /** Every file under SVC_INDEX_DIR (all generations, versions not pruned yet); null for an object store. */
  folderBytes: z.number().nullable(),
});
export type IndexSize = z.infer<typeof IndexSizeSchema>;

/** The window search latency is read over (the console and GET /api/metrics alike). */
export const SEARCH_LATENCY_WINDOW_SECONDS = 300;

/**
 * Search latency over the last SEARCH_LATENCY_WINDOW_SECONDS, as the web process answering measured
 * it: every search it ran (REST and console) that answered or hit the search timeout. Null
 * percentiles when it ran none in the window.
 */
export const SearchLatencySchema = z.object({
  windowSeconds: z.int(),
  searches: z.int(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
export type SearchLatency = z.infer<typeof SearchLatencySchema>;

export const HealthOverviewSchema = z.object({
  queue: QueueDepthSchema,
  /** Pairs the principal's listing shows whose latest attempt is `in_progress` (the listing's "Indexing now"). */
  pairsIndexing: z.int(),
  /** The last 60 minutes, oldest first, minutes without documents included as 0. */
  indexedPerMinute: z.array(IndexedPerMinuteSchema),
  /** The same minutes: documents an index rebuild wrote into its generation. */
  rebuiltPerMinute: z.array(IndexedPerMinuteSchema),
  /** Workers whose heartbeat is under WORKER_HEARTBEAT_MAX_AGE_SECONDS old (GET /api/metrics' `svc_workers`). */
  liveWorkers: z.int(),
  indexSize: IndexSizeSchema,
  searchLatency: SearchLatencySchema,
  /** Every failed document the principal may see (docs/decisions.md, "Failed"). */
  failedDocumentCount: z.int(),
  /** The newest FAILED_DOCUMENTS_LIMIT of them; a pair's page lists all of its own. */
  failedDocuments: z.array(FailedDocumentSchema),
  rebuild: ConsoleRebuildStatusSchema,
});
export type HealthOverview = z.infer<typeof HealthOverviewSchema>;

export const DEAD_LETTER_JOBS_LIMIT = 100;

/**
 * A job pg-boss moved to the dead-letter queue after its last retry failed, as far as the principal
 * may see it: an indexing job by its document (the document rule), a pair deletion by its pair (the
 * pair rule), anything else (rebuilds, purges) by an admin without scope only.
 */
export const DeadLetterJobSchema = z.object({
  /** The dead-letter job's id (what a retry names). */
  jobId: z.string(),
  /** The queue it failed on. */
  queue: z.string(),
  /** The document of an indexing job; null for other jobs. */
  documentId: z.string().nullable(),
  /** The document's name and status now; null when it no longer exists (or the job is not an indexing job). */
  semanticId: z.string().nullable(),
  documentStatus: DocumentIndexingStatusSchema.nullable(),
  /** The pairs the job concerns that the principal may see: the document's, or the deleted pair. */
  ccPairIds: z.array(z.int()),
  /** The generation of a rebuild or purge job. */
  generationId: z.int().nullable(),
  /** The message of its last failure, as pg-boss recorded it (no stack): for an indexing batch, the batch's. */
  error: z.string().nullable(),
  /** A failed document's own last error (why it failed, whichever batch it was in); null otherwise. */
  documentError: z.string().nullable(),
  /** Runs it had on its queue before it was moved (1 + retries). */
  runs: z.int(),
  /** When it was moved to the dead-letter queue. */
  failedAt: z.date(),
});
export type DeadLetterJob = z.infer<typeof DeadLetterJobSchema>;

export const DeadLetterListSchema = z.object({
  /** Every dead-letter job the principal may see; `jobs` holds the newest DEAD_LETTER_JOBS_LIMIT. */
  total: z.int(),
  jobs: z.array(DeadLetterJobSchema),
});
export type DeadLetterList = z.infer<typeof DeadLetterListSchema>;

/** One job (its `jobId`), or every dead-letter job when `all`. */
export const RetryDeadLetterInputSchema = z.union([z.object({ jobId: z.uuid() }), z.object({ all: z.literal(true) })]);
export type RetryDeadLetterInput = z.infer<typeof RetryDeadLetterInputSchema>;

export const RetryDeadLetterResultSchema = z.object({
  /** Jobs moved back to their queue as new jobs. */
  retried: z.int(),
});
export type RetryDeadLetterResult = z.infer<typeof RetryDeadLetterResultSchema>;

/** Left out: the current generation's setting is kept (as with the REST IndexRebuildRequest). */
export const StartRebuildInputSchema = z.object({
  chunkTokenLimit: z.int().min(MIN_CHUNK_TOKEN_LIMIT).max(MAX_CHUNK_TOKEN_LIMIT).optional(),
  // 63 characters: PostgreSQL's longest identifier.
  textSearchConfig: z.string().min(1).max(63).optional(),
});
export type StartRebuildInput = z.infer<typeof StartRebuildInputSchema>;

// ---- keys ----

/** A key as core lists it (the console and `svc keys list`): never the key itself, only its first characters. */
export const ApiKeySummarySchema = z.object({
  id: z.int(),
  name: z.string(),
  role: ApiKeyRoleSchema,
  displayPrefix: z.string(),
  scopeCcPairIds: z.array(z.int()),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
});
export type ApiKeySummary = z.infer<typeof ApiKeySummarySchema>;

export const CreateConsoleApiKeyInputSchema = z.object({
  name: z.string().trim().min(1),
  role: ApiKeyRoleSchema,
  scopeCcPairIds: z.array(IdSchema).max(MAX_CONSOLE_PAIR_IDS).optional(),
});
export type CreateConsoleApiKeyInput = z.infer<typeof CreateConsoleApiKeyInputSchema>;

/** The plain key is in this answer only: it is never shown again. */
export const CreatedConsoleApiKeySchema = z.object({
  id: z.int(),
  name: z.string(),
  role: ApiKeyRoleSchema,
  key: z.string(),
});
export type CreatedConsoleApiKey = z.infer<typeof CreatedConsoleApiKeySchema>;

export const ApiKeyIdInputSchema = z.object({ id: IdSchema });
export type ApiKeyIdInput = z.infer<typeof ApiKeyIdInputSchema>;

// ---- uploads ----

export const UPLOADED_FILES_LIMIT = 100;

/** An uploaded file as listed: the REST upload's `user_files` item without its row id, in camelCase. */
export const UploadedFileSchema = camelSchema(UserFileSchema.omit({ id: true }));
export type UploadedFile = z.infer<typeof UploadedFileSchema>;

/** An upload named by its `file_id` (a UUID; anything else names no file). */
export const FileIdInputSchema = z.object({ fileId: z.string().min(1).max(64) });
export type FileIdInput = z.infer<typeof FileIdInputSchema>;

// ---- REST shapes the console shows, in camelCase (core's values, passed through) ----

export const ConsoleIndexingStatusSchema = camelSchema(ConnectorIndexingStatusResponseSchema);
export const ConsoleCcPairSchema = camelSchema(CcPairSchema);
export const ConsoleDocumentPageSchema = camelSchema(DocMinimalInfoPageSchema);
export const ConsoleCreateCcPairInputSchema = camelSchema(CreateCcPairRequestSchema);
export const ConsoleCreatedCcPairSchema = camelSchema(CreatedCcPairSchema);
export const ConsoleSearchResponseSchema = camelSchema(SearchResponseSchema);
export const ConsoleDocumentSchema = camelSchema(DocumentWithChunksSchema);

// ---- webhooks (the REST endpoints' schemas, in camelCase; creation takes camelInput(CreateWebhookRequestSchema)) ----

export const ConsoleWebhookEndpointSchema = camelSchema(WebhookEndpointSchema);
export const ConsoleCreatedWebhookEndpointSchema = camelSchema(CreatedWebhookEndpointSchema);
export const ConsoleWebhookDeliverySchema = camelSchema(WebhookDeliverySchema);

export const WebhookEndpointIdInputSchema = z.object({ endpointId: IdSchema });
export type WebhookEndpointIdInput = z.infer<typeof WebhookEndpointIdInputSchema>;

/** Deliveries the console lists per endpoint (the newest; REST's list goes to 1,000). */
export const CONSOLE_WEBHOOK_DELIVERIES_LIMIT = 50;

/** An endpoint's newest deliveries, or only those whose last try failed (dead or waiting for a retry). */
export const WebhookDeliveriesInputSchema = WebhookEndpointIdInputSchema.extend({ failuresOnly: z.boolean().default(false) });
export type WebhookDeliveriesInput = z.input<typeof WebhookDeliveriesInputSchema>;

/** One delivery of an endpoint (an int4 id, as REST's `delivery_id`). */
export const WebhookDeliveryInputSchema = WebhookEndpointIdInputSchema.extend({ deliveryId: IdSchema });
export type WebhookDeliveryInput = z.infer<typeof WebhookDeliveryInputSchema>;
