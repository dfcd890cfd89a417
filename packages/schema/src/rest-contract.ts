import type { z } from "zod";
import type { ApiKeyRole } from "./api-key";
import {
  CcPairSchema,
  CreateCcPairRequestSchema,
  CreatedCcPairSchema,
  CcStatusUpdateRequestSchema,
  CreateFederatedConnectorRequestSchema,
  FederatedConnectorIdSchema,
  IdPathSchema,
  UpdateCcPairRequestSchema,
} from "./cc-pair";
import { ErrorDetailSchema } from "./error-detail";
import { EventStreamQuerySchema, MAX_EVENT_FILTER_VALUES } from "./events";
import {
  CategorizedFilesSnapshotSchema,
  FileIdPathSchema,
  FileUploadRequestSchema,
  FileUploadResponseSchema,
  MAX_FILES_PER_UPLOAD,
  UserFileSchema,
} from "./file-upload";
import { ConnectorIndexingStatusResponseSchema, IndexingStatusRequestSchema } from "./indexing-status";
import {
  CcPairIdPathSchema,
  DeletedDocumentSchema,
  DocMinimalInfoListSchema,
  DocumentDetailSchema,
  DocumentIdPathSchema,
  DocumentPageQuerySchema,
} from "./ingested-document";
import { IngestionConflictSchema, IngestionDocumentSchema, IngestionResultSchema } from "./ingestion";
import {
  excessSectionsInBatch,
  excessSectionsInDocument,
  IngestionBatchRequestSchema,
  IngestionBatchResponseSchema,
  MAX_INGESTION_BATCH_SIZE,
  MAX_SECTIONS_PER_REQUEST,
} from "./ingestion-batch";
import {
  MAX_SEARCH_FILTER_CC_PAIR_IDS,
  MAX_SEARCH_FILTER_SOURCES,
  MAX_SEARCH_FILTER_TAGS,
  SearchRequestSchema,
  SearchResponseSchema,
} from "./search";
import { ServiceInstanceSchema, ServiceStatusSchema, WORKER_HEARTBEAT_MAX_AGE_SECONDS } from "./service-status";
import { IndexRebuildRequestSchema, IndexRebuildStatusSchema } from "./search-index";
import { MAX_VALIDATION_ERROR_ITEMS, TOO_MANY_ERRORS_TYPE } from "./pydantic-errors";
import { HTTPValidationErrorSchema, MAX_ECHOED_INPUT_CHARS, MAX_ECHOED_INPUT_ITEMS } from "./validation-error";
import { MAX_BODY_VALIDATION_MS } from "./validation-deadline";
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookRequestSchema,
  WebhookDeliveryListSchema,
  WebhookDeliveryPathSchema,
  WebhookDeliveryQuerySchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookIdPathSchema,
} from "./webhook";

// The REST surface as data: one entry per endpoint. The web app binds each entry to a handler (a
// missing handler does not compile), its dispatcher routes by these paths and methods, and the
// OpenAPI document's paths are generated from these schemas. Adding an endpoint is one entry here,
// one handler line in apps/web, and the core function it calls.

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One response of an endpoint: its description and, when it has a body, the body's schema. */
export interface RestResponse {
  description: string;
  schema?: z.ZodType;
  /** A body that is not JSON (the metrics' text format): its media type, described as a string. */
  contentType?: string;
  headers?: Record<string, { description: string }>;
}

/** Path or query parameters: the schema that validates them, and a description of each. */
export interface RestParameters {
  schema: z.ZodType;
  descriptions: Record<string, string>;
}

/**
 * A request body. `json` bodies are read with the body limit and validated by the dispatcher
 * (`required: false`: an empty body counts as `{}`); `multipart` bodies are read by the handler.
 */
export type RestBody =
  | {
      type: "json";
      schema: z.ZodType;
      required: boolean;
      /** Looks at the parsed body before its validation: a detail returned is the answer, a 413. */
      refuseTooLarge?: (body: unknown) => string | undefined;
    }
  | { type: "multipart"; schema: z.ZodType };

export interface RestEndpoint {
  method: HttpMethod;
  /** OpenAPI-style path under the API root (`/api`), `{name}` for one path segment. */
  path: string;
  /** The API key roles allowed; `public` endpoints take no key. */
  auth: readonly ApiKeyRole[] | "public";
  /**
   * The setting that may hold a bearer token accepted besides those keys (GET /metrics:
   * `SVC_METRICS_TOKEN`, so a scraper needs no admin key). Unset, only the keys are.
   */
  alternativeToken?: string;
  summary: string;
  description?: string;
  tag: string;
  pathParams?: RestParameters;
  query?: RestParameters;
  body?: RestBody;
  /** By status; the one 2xx status is what a successful call answers. */
  responses: Record<number, RestResponse>;
  /** Left out of the OpenAPI document (the document itself). */
  undocumented?: true;
  /**
   * `search`: the whole request (body read, key check, the operation) runs under the search timeout
   * (SVC_SEARCH_TIMEOUT_MS); past it the answer is 503 with Retry-After (408 while the body is still arriving).
   */
  deadline?: "search";
}

const ADMIN_OR_CURATOR = ["admin", "curator"] as const satisfies readonly ApiKeyRole[];
const ADMIN = ["admin"] as const satisfies readonly ApiKeyRole[];

const error = (description: string): RestResponse => ({ description, schema: ErrorDetailSchema });
const ok = <Schema extends z.ZodType>(schema: Schema, description = "Successful Response") => ({ description, schema });

const UNAUTHORIZED: RestResponse = {
  ...error("Missing or invalid API key"),
  headers: { "WWW-Authenticate": { description: "`Bearer`" } },
};
const FORBIDDEN = error("The API key's role or scope does not allow this operation");
const ADMIN_ONLY = error("The API key is not an admin key, or the pair is outside its scope");
const UNSCOPED_ADMIN_ONLY = error("The API key is not an admin key, or is scoped to pairs");
const TOO_LARGE_BODY = `The request body is larger than the configured limit, or took longer than ${MAX_BODY_VALIDATION_MS / 1000} s (by default) to validate`;
const TOO_LARGE = error(TOO_LARGE_BODY);
const TOO_MANY_SECTIONS = `holds more than ${MAX_SECTIONS_PER_REQUEST.toLocaleString("en-US")} sections`;
const OVERLOADED: RestResponse = {
  ...error("Too many requests in flight, or the indexing queue is past its limit; try again later"),
  headers: { "Retry-After": { description: "Seconds to wait before trying again" } },
};
const IMAGE_FILE_DELETED = error("An image file a section names was deleted while the write was under way; send it again");
const INGESTION_CONFLICT: RestResponse = {
  description:
    "`if_version` no longer holds (`current_version` is the version stored now, null for no document), " +
    "or an image file a section names was deleted while the write was under way (send it again)",
  schema: IngestionConflictSchema,
};
/** Searches are refused only on the in-flight bound and the event loop's delay, never on the indexing queue. */
const BUSY: RestResponse = {
  ...error("Too many requests in flight, or the server is busy; try again later"),
  headers: { "Retry-After": { description: "Seconds to wait before trying again" } },
};
const SEARCH_TOO_LONG: RestResponse = {
  ...error("The request (body, key check and search together) took longer than the search timeout; narrow the query"),
  headers: { "Retry-After": { description: "Seconds to wait before trying again" } },
};
const VALIDATION_FAILED: RestResponse = {
  description:
    `Validation Error: at most ${MAX_VALIDATION_ERROR_ITEMS} items, then one \`${TOO_MANY_ERRORS_TYPE}\` item counting those left out; ` +
    `each echoed \`input\` cut to ${MAX_ECHOED_INPUT_CHARS} characters (lists and objects to ${MAX_ECHOED_INPUT_ITEMS} items)`,
  schema: HTTPValidationErrorSchema,
};

const PAIR_ID = { schema: IdPathSchema, descriptions: { id: "The pair's id" } } satisfies RestParameters;
const DOCUMENT_ID = {
  schema: DocumentIdPathSchema,
  descriptions: { document_id: "The document's id, URL-encoded (a `/` in the id is sent as `%2F`)" },
} satisfies RestParameters;
const DOCUMENT_PAGE = {
  schema: DocumentPageQuerySchema,
  descriptions: {
    limit: "Documents per page (1–1,000). Without it the whole list is answered, streamed",
    cursor: "Opaque; taken from the `Link` header's `rel=\"next\"` URL. Absent for the first page",
  },
} satisfies RestParameters;
/** A document listing: a bare array; a page says where the next one is in `Link` (docs/decisions.md "Per-document routes and document lists"). */
const DOCUMENT_LIST: RestResponse = {
  ...ok(DocMinimalInfoListSchema),
  headers: {
    Link: {
      description:
        'With `limit`, while more documents remain: `<{this URL with cursor=…}>; rel="next"` (RFC 8288). Absent on the last page and without `limit`',
    },
  },
};
/** What a change of a pair (PATCH, PUT …/status) answers. */
const PAIR_CHANGED = {
  200: ok(CcPairSchema),
  400: error("The default pair cannot be changed"),
  401: UNAUTHORIZED,
  403: ADMIN_ONLY,
  404: error("No such pair"),
  409: error("The pair is being deleted"),
  413: TOO_LARGE,
  422: VALIDATION_FAILED,
};
const WEBHOOK_ID = { schema: WebhookIdPathSchema, descriptions: { id: "The webhook endpoint's id" } } satisfies RestParameters;
const NO_SUCH_WEBHOOK = error("No such webhook endpoint, or none the key may see");
const json = <Schema extends z.ZodType>(
  schema: Schema,
  { required = true, refuseTooLarge }: { required?: boolean; refuseTooLarge?: (body: unknown) => string | undefined } = {},
) => ({ type: "json" as const, schema, required, refuseTooLarge });

/** Keeps each entry's literal types (its schemas, its auth) while checking it is an endpoint. */
function endpoint<const Endpoint extends RestEndpoint>(entry: Endpoint): Endpoint {
  return entry;
}

/** Every REST endpoint, by operation id. */
export const REST_CONTRACT = {
  getHealth: endpoint({
    method: "GET",
    path: "/health",
    auth: "public",
    summary: "Liveness",
    description:
      "Whether the web process answers; it calls no database, so a database outage does not make it fail. `checks.process` is its one check.",
    tag: "operations",
    responses: { 200: ok(ServiceStatusSchema, "The process answers") },
  }),
  getReadiness: endpoint({
    method: "GET",
    path: "/ready",
    auth: "public",
    summary: "Readiness",
    description:
      "Whether svc can serve: the database is reachable (`checks.database`), every migration this build knows is applied (`checks.migrations`), " +
      `and a worker's heartbeat was seen within the last ${WORKER_HEARTBEAT_MAX_AGE_SECONDS} s (\`checks.worker\`).`,
    tag: "operations",
    responses: {
      200: ok(ServiceStatusSchema, "Every check is `ok`"),
      503: { description: "A check is `unavailable`; its `detail` says why", schema: ServiceStatusSchema },
    },
  }),
  getServiceInstance: endpoint({
    method: "GET",
    path: "/svc-api/instance",
    auth: ADMIN_OR_CURATOR,
    summary: "This svc's instance id",
    description:
      "A UUID created once with svc's database: it changes when the database is reset or another one is behind the URL. " +
      "`svc ingest` calls it first, to check its key, and keys its resume state by it.",
    tag: "operations",
    responses: { 200: ok(ServiceInstanceSchema), 401: UNAUTHORIZED, 403: FORBIDDEN },
  }),
  upsertIngestionDocument: endpoint({
    method: "POST",
    path: "/svc-api/ingestion",
    auth: ADMIN_OR_CURATOR,
    summary: "Upsert a document",
    description:
      "Creates or updates one document. A 200 means the document was accepted; indexing follows asynchronously. " +
      "A write may carry a condition: `if_version` (409 with `current_version` when the stored version moved) or " +
      "`if_newer` (ignored, `applied: false`, when the stored `doc_updated_at` is newer); with one, the answer says `applied`.",
    tag: "ingestion",
    body: json(IngestionDocumentSchema, { refuseTooLarge: excessSectionsInDocument }),
    responses: {
      200: ok(IngestionResultSchema),
      400: error("The connector-credential pair does not exist"),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      409: INGESTION_CONFLICT,
      413: error(`${TOO_LARGE_BODY}, or its document ${TOO_MANY_SECTIONS}`),
      422: VALIDATION_FAILED,
      429: OVERLOADED,
    },
  }),
  ingestDocumentBatch: endpoint({
    method: "POST",
    path: "/svc-api/ingestion/batch",
    auth: ADMIN_OR_CURATOR,
    summary: "Upsert many documents",
    description:
      `Creates or updates 1 to ${MAX_INGESTION_BATCH_SIZE.toLocaleString("en-US")} documents, each exactly as \`POST /svc-api/ingestion\` would, independently: ` +
      "`results` has one entry per document, in request order: `{document_id, already_existed}` when it was accepted, or " +
      "`{error: {status, detail}}` with the status (400, 403, 409 or 422) and detail the single call would have answered " +
      '(422 items\' `loc` start with `["body", "documents", <index>]`). Every accepted document is durable with its indexing job before the answer. ' +
      `Nothing is stored when validating the items takes longer than ${MAX_BODY_VALIDATION_MS / 1000} s (by default; 413) or their errors together pass one 422's bounds ` +
      `(${MAX_VALIDATION_ERROR_ITEMS} errors, 64 kB): then the whole batch is one 422 listing the errors found so far.`,
    tag: "ingestion",
    body: json(IngestionBatchRequestSchema, { refuseTooLarge: excessSectionsInBatch }),
    responses: {
      200: ok(IngestionBatchResponseSchema),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      409: IMAGE_FILE_DELETED,
      413: error(
        `${TOO_LARGE_BODY}, or it holds more than ${MAX_INGESTION_BATCH_SIZE} documents, or its documents together ${TOO_MANY_SECTIONS}`,
      ),
      422: VALIDATION_FAILED,
      429: OVERLOADED,
    },
  }),
  listIngestedDocuments: endpoint({
    method: "GET",
    path: "/svc-api/ingestion",
    auth: ADMIN_OR_CURATOR,
    summary: "List ingested documents",
    description:
      "The documents created through the ingestion API, ordered by id: all of them (streamed) or, with `limit`, a page at a time. A key scoped to pairs lists the documents it may see, as search finds them.",
    tag: "ingestion",
    query: DOCUMENT_PAGE,
    responses: { 200: DOCUMENT_LIST, 401: UNAUTHORIZED, 403: FORBIDDEN, 422: VALIDATION_FAILED },
  }),
  getIngestionDocument: endpoint({
    method: "GET",
    path: "/svc-api/ingestion/{document_id}",
    auth: ADMIN_OR_CURATOR,
    summary: "Get a document and its indexing status",
    description:
      "The stored document (its DocumentBase fields) with `indexing_status`, the current and indexed versions, the chunk count, the last error, the attempts and the pairs it belongs to.",
    tag: "ingestion",
    pathParams: DOCUMENT_ID,
    responses: {
      200: ok(DocumentDetailSchema),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      404: error("No such document, or none the key may see"),
    },
  }),
  deleteIngestionDocument: endpoint({
    method: "DELETE",
    path: "/svc-api/ingestion/{document_id}",
    auth: ADMIN_OR_CURATOR,
    summary: "Delete an ingested document",
    description:
      "Removes the document, its sections, its chunks and its links to pairs, and updates the pairs' `docs_indexed`, in one transaction.",
    tag: "ingestion",
    pathParams: DOCUMENT_ID,
    responses: {
      200: ok(DeletedDocumentSchema, "Deleted; the body is `null`"),
      400: error("The document was not created through the ingestion API"),
      401: UNAUTHORIZED,
      403: error("The API key's role does not allow this, or the document belongs to a pair outside its scope"),
      404: error("No such document, or none the key may see"),
    },
  }),
  listCcPairDocuments: endpoint({
    method: "GET",
    path: "/svc-api/connector-docs/{cc_pair_id}",
    auth: ADMIN_OR_CURATOR,
    summary: "List a connector-credential pair's documents",
    description:
      "The documents linked to the pair that the key may see (as search finds them), ordered by id: all of them (streamed) or, with `limit`, a page at a time.",
    tag: "ingestion",
    pathParams: { schema: CcPairIdPathSchema, descriptions: { cc_pair_id: "The pair's id" } },
    query: DOCUMENT_PAGE,
    responses: {
      200: DOCUMENT_LIST,
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      404: error("No such pair, or none the key may see"),
      422: VALIDATION_FAILED,
    },
  }),
  streamEvents: endpoint({
    method: "GET",
    path: "/svc-api/events",
    auth: ADMIN_OR_CURATOR,
    summary: "Stream events (Server-Sent Events)",
    description:
      "A `text/event-stream` of the events the key may see (docs/decisions.md \"Events\"): `document.indexed`, `document.failed`, `document.deleted`, " +
      "`attempt.finished` and `rebuild.finished`, in the order they became final, each once. Every message has `id:` (the event's stable id, `evt_<n>`), " +
      "`event:` (its type) and `data:` (the event as JSON, the `SvcEvent` component: `id`, `type`, `time`, `document_id`, `cc_pair_ids`, `version`, `status`, `error`, `counts`). " +
      "A document's event is shown when the key may see the document (as GET and search decide), a deleted document's when one of its pairs is the key's, " +
      "an attempt's when the key may see its pair, a rebuild's to an admin key without scope; `cc_pair_ids` lists only the pairs the key may see. " +
      "Without a position the stream starts now; `Last-Event-ID` (or `after`, for clients that cannot set headers; the header wins) resumes after that event, " +
      "`evt_0` from the oldest event kept (`SVC_EVENT_RETENTION_HOURS`, 24 h by default). A position no longer kept starts with an `events.missed` message (the `EventsMissed` component), " +
      "then every event kept. The first message (no data) names the stream's position in `id:`; a `: live` comment says the stream caught up; " +
      "a `: heartbeat` comment comes every 15 s when nothing else was sent. A web process serves at most `SVC_MAX_EVENT_STREAMS` streams (256 by default).",
    tag: "events",
    query: {
      schema: EventStreamQuerySchema,
      descriptions: {
        after: "Resume after this event id (`evt_<n>`; `evt_0`: from the oldest kept). `Last-Event-ID` wins when both are sent",
        cc_pair_id: `Only events of these pairs, comma-separated (at most ${MAX_EVENT_FILTER_VALUES}); a pair the key does not see matches nothing`,
        types: `Only these event types, comma-separated (at most ${MAX_EVENT_FILTER_VALUES})`,
      },
    },
    responses: {
      200: { description: "The stream: `text/event-stream`, open until the client closes it", contentType: "text/event-stream" },
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      422: VALIDATION_FAILED,
      429: {
        ...error("The server already serves `SVC_MAX_EVENT_STREAMS` streams, or too many requests are in flight; try again later"),
        headers: { "Retry-After": { description: "Seconds to wait before trying again" } },
      },
    },
  }),
  searchDocuments: endpoint({
    method: "POST",
    path: "/svc-api/search",
    auth: ADMIN_OR_CURATOR,
    summary: "Search the indexed documents",
    description:
      "Full-text search over the indexed chunks, documents ranked by their best chunk, each with its best 3 chunks. " +
      "The query is a question or a few words: with `match` `any` (the default) a chunk holding any of its words matches, " +
      "ranked by BM25 (more of the words, and rarer ones, rank higher; a misspelled word is matched to the index's nearest terms); " +
      'with `match` `all` every word must match. `"quoted phrases"` are required and `-word` or `-"a phrase"` excludes in both. ' +
      "A document is visible when its `external_access` is absent and a pair it belongs to is public, or `is_public` is true, " +
      "or the principal's email or one of its groups is listed. A key without scope sees everything; an admin key without scope passing `principal` sees exactly what that user would see. " +
      "A scoped key, admin or curator, sees public documents plus those of its pairs, and may not pass `principal`. " +
      "The query has at most 1,000 characters and 64 terms (words, those in quoted phrases and excluded ones included); " +
      `\`filters\` at most ${MAX_SEARCH_FILTER_CC_PAIR_IDS.toLocaleString("en-US")} \`cc_pair_ids\`, ${MAX_SEARCH_FILTER_SOURCES} \`sources\` and ${MAX_SEARCH_FILTER_TAGS} \`tags\`; more is a 422. ` +
      "The whole request runs under the search timeout (5 s by default): past it, 503.",
    tag: "search",
    body: json(SearchRequestSchema),
    deadline: "search",
    responses: {
      200: ok(SearchResponseSchema),
      401: UNAUTHORIZED,
      403: error("The API key's role does not allow this, or a key other than an unscoped admin passed `principal`"),
      413: TOO_LARGE,
      422: VALIDATION_FAILED,
      429: BUSY,
      503: SEARCH_TOO_LONG,
    },
  }),
  getConnectorIndexingStatus: endpoint({
    method: "POST",
    path: "/manage/admin/connector/indexing-status",
    auth: ADMIN_OR_CURATOR,
    summary: "Get connector indexing status",
    description: "Connector-credential pairs with their indexing status, grouped by source, filtered and paged.",
    tag: "connectors",
    body: json(IndexingStatusRequestSchema),
    responses: {
      200: ok(ConnectorIndexingStatusResponseSchema),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      422: VALIDATION_FAILED,
    },
  }),
  createCcPair: endpoint({
    method: "POST",
    path: "/manage/admin/cc-pair",
    auth: ADMIN,
    summary: "Create a connector-credential pair",
    description: "Creates a connector, a credential and the pair joining them; the pair starts as `SCHEDULED`.",
    tag: "connectors",
    body: json(CreateCcPairRequestSchema),
    responses: { 200: ok(CreatedCcPairSchema), 401: UNAUTHORIZED, 403: ADMIN_ONLY, 422: VALIDATION_FAILED },
  }),
  getCcPair: endpoint({
    method: "GET",
    path: "/manage/admin/cc-pair/{id}",
    auth: ADMIN,
    summary: "Get a connector-credential pair",
    tag: "connectors",
    pathParams: PAIR_ID,
    responses: {
      200: ok(CcPairSchema),
      401: UNAUTHORIZED,
      403: ADMIN_ONLY,
      404: error("No such pair"),
      422: VALIDATION_FAILED,
    },
  }),
  updateCcPair: endpoint({
    method: "PATCH",
    path: "/manage/admin/cc-pair/{id}",
    auth: ADMIN,
    summary: "Rename, pause or resume a connector-credential pair",
    description:
      "`status: PAUSED` pauses the pair (documents are still accepted; their indexing waits); `status: ACTIVE` resumes a paused pair.",
    tag: "connectors",
    pathParams: PAIR_ID,
    body: json(UpdateCcPairRequestSchema),
    responses: PAIR_CHANGED,
  }),
  setCcPairStatus: endpoint({
    method: "PUT",
    path: "/manage/admin/cc-pair/{id}/status",
    auth: ADMIN,
    summary: "Pause or resume a connector-credential pair",
    description:
      "The original's `CCStatusUpdateRequest`: `PAUSED` pauses the pair (documents are still accepted; their indexing waits), `ACTIVE` resumes it. Answers the pair as GET shows it.",
    tag: "connectors",
    pathParams: PAIR_ID,
    body: json(CcStatusUpdateRequestSchema),
    responses: PAIR_CHANGED,
  }),
  deleteCcPair: endpoint({
    method: "DELETE",
    path: "/manage/admin/cc-pair/{id}",
    auth: ADMIN,
    summary: "Delete a connector-credential pair",
    description:
      "Marks the pair `DELETING` and queues its removal: a background job removes its links, every document no other pair still holds, its index attempts, then the pair.",
    tag: "connectors",
    pathParams: PAIR_ID,
    responses: {
      202: ok(CcPairSchema, "Deletion accepted; the pair is DELETING until the job has run"),
      400: error("The default pair cannot be deleted"),
      401: UNAUTHORIZED,
      403: ADMIN_ONLY,
      404: error("No such pair"),
      422: VALIDATION_FAILED,
    },
  }),
  createFederatedConnector: endpoint({
    method: "POST",
    path: "/manage/admin/federated-connector",
    auth: ADMIN,
    summary: "Create a federated connector",
    description:
      "A connector that searches its source live and indexes nothing; it shows in the status listing. It belongs to no pair, so it needs an admin key without scope.",
    tag: "connectors",
    body: json(CreateFederatedConnectorRequestSchema),
    responses: { 200: ok(FederatedConnectorIdSchema), 401: UNAUTHORIZED, 403: UNSCOPED_ADMIN_ONLY, 422: VALIDATION_FAILED },
  }),
  deleteFederatedConnector: endpoint({
    method: "DELETE",
    path: "/manage/admin/federated-connector/{id}",
    auth: ADMIN,
    summary: "Delete a federated connector",
    description: "Needs an admin key without scope, as creating one does.",
    tag: "connectors",
    pathParams: { schema: IdPathSchema, descriptions: { id: "The federated connector's id" } },
    responses: {
      200: ok(FederatedConnectorIdSchema),
      401: UNAUTHORIZED,
      403: UNSCOPED_ADMIN_ONLY,
      404: error("No such federated connector"),
      422: VALIDATION_FAILED,
    },
  }),
  getIndexRebuildStatus: endpoint({
    method: "GET",
    path: "/manage/admin/search-index/rebuild",
    auth: ADMIN,
    summary: "Get the search index's generation and rebuild status",
    description:
      "The generation search reads and its settings (chunk size, text-search configuration), the rebuild in progress with documents done, failed and total (null when idle), and the last rebuild that ended.",
    tag: "search",
    responses: { 200: ok(IndexRebuildStatusSchema), 401: UNAUTHORIZED, 403: ADMIN_ONLY },
  }),
  startIndexRebuild: endpoint({
    method: "POST",
    path: "/manage/admin/search-index/rebuild",
    auth: ADMIN,
    summary: "Rebuild the search index",
    description:
      "Builds a new generation of the search index from every indexed document, in the background, with the given chunk size and text-search configuration (the current ones when left out; the body is optional). " +
      "Search keeps reading the current generation and new documents are written to both; when every document is written the new generation replaces the old one at once. Needs an admin key without scope.",
    tag: "search",
    body: json(IndexRebuildRequestSchema, { required: false }),
    responses: {
      202: ok(IndexRebuildStatusSchema, "Rebuild started; its progress is in `rebuild`"),
      401: UNAUTHORIZED,
      403: UNSCOPED_ADMIN_ONLY,
      409: error("A rebuild is already running"),
      413: TOO_LARGE,
      422: VALIDATION_FAILED,
    },
  }),
  cancelIndexRebuild: endpoint({
    method: "DELETE",
    path: "/manage/admin/search-index/rebuild",
    auth: ADMIN,
    summary: "Cancel the running rebuild",
    description:
      "The new generation is dropped (its chunks are deleted in the background); search and indexing carry on with the current one.",
    tag: "search",
    responses: {
      200: ok(IndexRebuildStatusSchema),
      401: UNAUTHORIZED,
      403: UNSCOPED_ADMIN_ONLY,
      404: error("No rebuild is running"),
    },
  }),
  createWebhook: endpoint({
    method: "POST",
    path: "/manage/admin/webhook",
    auth: ADMIN,
    summary: "Register a webhook endpoint",
    description:
      "svc POSTs each event (`document.indexed`, `document.failed`, `document.deleted`, `attempt.finished`, `rebuild.finished`) of the given pairs and types " +
      "(all when left out) to `url`, signed in the Standard Webhooks scheme with the returned `secret` (shown only in this answer), at least once, " +
      "retried with exponential backoff for 24 h. The host must be a public address unless the operator set `SVC_WEBHOOK_ALLOW_PRIVATE`. " +
      "A key scoped to pairs registers only for its own pairs (all of them when it names none); an endpoint of every pair needs an admin key without scope.",
    tag: "webhooks",
    body: json(CreateWebhookRequestSchema),
    responses: {
      200: ok(CreatedWebhookEndpointSchema),
      400: error("The URL is not http(s), carries credentials, does not resolve or is a loopback or private address; or a pair does not exist"),
      401: UNAUTHORIZED,
      403: ADMIN_ONLY,
      413: TOO_LARGE,
      422: VALIDATION_FAILED,
    },
  }),
  listWebhooks: endpoint({
    method: "GET",
    path: "/manage/admin/webhook",
    auth: ADMIN,
    summary: "List webhook endpoints",
    description: "The endpoints the key may see (a scoped key: those of its own pairs only), oldest first, without their secrets.",
    tag: "webhooks",
    responses: { 200: ok(WebhookEndpointListSchema), 401: UNAUTHORIZED, 403: ADMIN_ONLY },
  }),
  deleteWebhook: endpoint({
    method: "DELETE",
    path: "/manage/admin/webhook/{id}",
    auth: ADMIN,
    summary: "Delete a webhook endpoint",
    description: "Removes the endpoint and its deliveries; those still pending are not sent.",
    tag: "webhooks",
    pathParams: WEBHOOK_ID,
    responses: { 200: ok(WebhookEndpointSchema, "The deleted endpoint"), 401: UNAUTHORIZED, 403: ADMIN_ONLY, 404: NO_SUCH_WEBHOOK, 422: VALIDATION_FAILED },
  }),
  listWebhookDeliveries: endpoint({
    method: "GET",
    path: "/manage/admin/webhook/{id}/deliveries",
    auth: ADMIN,
    summary: "List a webhook endpoint's last deliveries",
    description:
      "Newest first: each event sent (or to be sent) to the endpoint, with its status (`pending`, `delivered`, `dead` once retries ran out), tries, and the last try's status code or error.",
    tag: "webhooks",
    pathParams: WEBHOOK_ID,
    query: { schema: WebhookDeliveryQuerySchema, descriptions: { limit: "Deliveries to list (1–1,000; 50 by default)" } },
    responses: { 200: ok(WebhookDeliveryListSchema), 401: UNAUTHORIZED, 403: ADMIN_ONLY, 404: NO_SUCH_WEBHOOK, 422: VALIDATION_FAILED },
  }),
  resendWebhookDelivery: endpoint({
    method: "POST",
    path: "/manage/admin/webhook/{id}/deliveries/{delivery_id}/resend",
    auth: ADMIN,
    summary: "Send a delivery again",
    description: "Sends the delivery again now, with the same event id and body, whatever it came to, and retries it for another 24 h if it fails.",
    tag: "webhooks",
    pathParams: {
      schema: WebhookDeliveryPathSchema,
      descriptions: { id: "The webhook endpoint's id", delivery_id: "The delivery's id" },
    },
    responses: {
      200: ok(WebhookDeliverySchema),
      401: UNAUTHORIZED,
      403: ADMIN_ONLY,
      404: error("No such webhook endpoint or delivery, or none the key may see"),
      409: error("The delivery is being sent right now"),
      422: VALIDATION_FAILED,
    },
  }),
  uploadUserFiles: endpoint({
    method: "POST",
    path: "/user/file/upload",
    auth: ADMIN_OR_CURATOR,
    summary: "Upload images",
    description:
      `Stores PNG, JPEG, GIF or WebP images, at most ${MAX_FILES_PER_UPLOAD} per request; the returned \`file_id\` is what a section's \`image_file_id\` names. ` +
      "A file belongs to the key's scope: a scoped key names only files uploaded by keys sharing one of its pairs.",
    tag: "files",
    body: { type: "multipart", schema: FileUploadRequestSchema },
    responses: {
      200: ok(FileUploadResponseSchema),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      413: TOO_LARGE,
      422: VALIDATION_FAILED,
    },
  }),
  deleteUserFile: endpoint({
    method: "DELETE",
    path: "/user/file/{file_id}",
    auth: ADMIN,
    summary: "Delete an uploaded image",
    description:
      "Removes the file; an image section can no longer name it (422 as for an unknown id). A scoped admin key deletes only files whose every pair is its own; a file that a document's image section still names is kept (409).",
    tag: "files",
    pathParams: { schema: FileIdPathSchema, descriptions: { file_id: "The file's `file_id`" } },
    responses: {
      200: ok(UserFileSchema, "The deleted file"),
      401: UNAUTHORIZED,
      403: ADMIN_ONLY,
      404: error("No such file, or not one the key's scope sees"),
      409: error("An image section still names the file"),
      422: VALIDATION_FAILED,
    },
  }),
  uploadProjectFiles: endpoint({
    method: "POST",
    path: "/user/projects/file/upload",
    auth: ADMIN_OR_CURATOR,
    summary: "Upload images (the newer releases' path)",
    description:
      "Stores files exactly as `POST /user/file/upload` does and answers the newer releases' `CategorizedFilesSnapshot`; `file_id` is what a section's `image_file_id` names.",
    tag: "files",
    body: { type: "multipart", schema: FileUploadRequestSchema },
    responses: {
      200: ok(CategorizedFilesSnapshotSchema),
      401: UNAUTHORIZED,
      403: FORBIDDEN,
      413: TOO_LARGE,
      422: VALIDATION_FAILED,
    },
  }),
  getMetrics: endpoint({
    method: "GET",
    path: "/metrics",
    auth: ADMIN,
    alternativeToken: "SVC_METRICS_TOKEN",
    summary: "Prometheus metrics",
    description:
      "Prometheus text format. Requests by method, route pattern and status (count and duration), the web's and each worker's process metrics, " +
      "each worker's jobs by queue and outcome and its indexing lag (accept → indexed), labelled `component` and `worker_id`; and, counted from the database at scrape time, " +
      "documents by indexing status, queue depth and oldest queued age per queue, index attempts by status. The counts cover every pair, so it needs an admin key without scope, or the bearer token set in `SVC_METRICS_TOKEN`.",
    tag: "operations",
    responses: {
      200: { description: "The metrics, in Prometheus text format 0.0.4", contentType: "text/plain" },
      401: UNAUTHORIZED,
      403: UNSCOPED_ADMIN_ONLY,
    },
  }),
  getApiReference: endpoint({
    method: "GET",
    path: "/docs",
    auth: "public",
    summary: "The interactive API reference",
    description: "An HTML page (Scalar) over `/openapi.json`, with its script served by svc itself: it loads nothing from elsewhere.",
    tag: "meta",
    responses: { 200: { description: "The page", contentType: "text/html" } },
    undocumented: true,
  }),
  getApiReferenceScript: endpoint({
    method: "GET",
    path: "/docs/scalar.js",
    auth: "public",
    summary: "The API reference page's script",
    tag: "meta",
    responses: { 200: { description: "Scalar's standalone bundle", contentType: "text/javascript" } },
    undocumented: true,
  }),
  getOpenApiDocument: endpoint({
    method: "GET",
    path: "/openapi.json",
    auth: "public",
    summary: "The OpenAPI document",
    tag: "meta",
    responses: { 200: { description: "The OpenAPI 3.1 document" } },
    undocumented: true,
  }),
} satisfies Record<string, RestEndpoint>;

export type RestContract = typeof REST_CONTRACT;
export type RestOperationId = keyof RestContract;

/** The status a successful call of the endpoint answers (its one 2xx response). */
export function successStatus(entry: RestEndpoint): number {
  const status = Object.keys(entry.responses).map(Number).find((code) => code >= 200 && code < 300);
  if (status === undefined) throw new Error(`REST contract: ${entry.method} ${entry.path} has no 2xx response`);
  return status;
}
