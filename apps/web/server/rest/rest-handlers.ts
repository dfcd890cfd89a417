import {
  cancelIndexRebuild,
  createCcPair,
  createFederatedConnector,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  resendWebhookDelivery,
  deleteCcPair,
  deleteDocument,
  deleteFederatedConnector,
  deleteUploadedFile,
  getCcPair,
  getDocument,
  getIndexRebuildStatus,
  ingestDocument,
  ingestDocuments,
  listCcPairDocuments,
  listIndexingStatus,
  listIngestedDocuments,
  openEventStream,
  readInstanceId,
  requireUnscopedAdmin,
  searchDocuments,
  startIndexRebuild,
  streamCcPairDocuments,
  streamIngestedDocuments,
  updateCcPair,
  uploadProjectFiles,
  type Principal,
} from "@svc/core";
import {
  buildOpenApiDocument,
  CcPairSchema,
  ConnectorIndexingStatusResponseSchema,
  CreatedCcPairSchema,
  CategorizedFilesSnapshotSchema,
  CreatedWebhookEndpointSchema,
  DocumentDetailSchema,
  FileUploadResponseSchema,
  IndexingStatusRequestSchema,
  IndexRebuildStatusSchema,
  IngestionBatchResponseSchema,
  IngestionResultSchema,
  fromWire,
  SearchRequestSchema,
  SearchResponseSchema,
  toWire,
  UserFileSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  type RestContract,
  type RestEndpoint,
  type RestOperationId,
} from "@svc/schema";
import type { z } from "zod";
import { readReadiness } from "../read-readiness";
import type { Services } from "../services";
import { handleUpload, readUploadedFiles } from "../upload";
import { webEnv } from "../env";
import { apiReferencePage, apiReferenceScript } from "../api-reference";
import { observeSearch } from "../observability/observe-search";
import { renderMetrics } from "../observability/render-metrics";
import { documentListResponse } from "./document-list-response";
import { EventStreamResponse, resumePosition } from "./event-stream-response";

type Parsed<Part> = Part extends { schema: infer Schema extends z.ZodType } ? z.output<Schema> : undefined;
type JsonBody<Body> = Body extends { type: "json"; schema: infer Schema extends z.ZodType } ? z.output<Schema> : undefined;

/**
 * What a handler receives: the request parts its contract entry declares, already validated with the
 * entry's schemas, and (unless the entry is public) the authenticated principal with the services.
 */
export type RestHandlerInput<Endpoint extends RestEndpoint> = {
  request: Request;
  /** Aborts when the client goes away, or when the entry's deadline passes. */
  signal: AbortSignal;
  /** When the entry's deadline passes (epoch milliseconds), for entries that have one. */
  deadlineAt?: number;
  path: Parsed<Endpoint extends { pathParams: infer Part } ? Part : undefined>;
  query: Parsed<Endpoint extends { query: infer Part } ? Part : undefined>;
  body: JsonBody<Endpoint extends { body: infer Body } ? Body : undefined>;
} & (Endpoint["auth"] extends "public" ? { principal?: undefined; services?: undefined } : { principal: Principal; services: Services });

/** The body of the entry's 2xx response, as its schema describes it (unknown when it has none). */
type SuccessBody<Endpoint extends RestEndpoint> = {
  [Status in keyof Endpoint["responses"]]: Status extends 200 | 201 | 202
    ? Endpoint["responses"][Status] extends { schema: infer Schema extends z.ZodType }
      ? z.input<Schema>
      : unknown
    : never;
}[keyof Endpoint["responses"]];

/** Calls one core function; returns the body of the entry's 2xx response (or a Response). */
export type RestHandler<Endpoint extends RestEndpoint> = (
  input: RestHandlerInput<Endpoint>,
) => SuccessBody<Endpoint> | Response | Promise<SuccessBody<Endpoint> | Response>;

/** Every contract entry's handler: an entry without one does not compile. */
export const REST_HANDLERS: { [Id in RestOperationId]: RestHandler<RestContract[Id]> } = {
  // Liveness answers from the process alone: no database call, so an outage does not restart it.
  getHealth: () => ({ status: "ok", checks: { process: { status: "ok" } } }),
  getReadiness: () => readReadiness(),
  getServiceInstance: async ({ services }) => ({ instance_id: await readInstanceId({ db: services.db }) }),
  upsertIngestionDocument: async ({ body, principal, services }) =>
    toWire(IngestionResultSchema, await ingestDocument({ db: services.db, boss: services.boss, principal, input: body })),
  ingestDocumentBatch: async ({ body, principal, services }) =>
    toWire(IngestionBatchResponseSchema, await ingestDocuments({
        db: services.db,
        boss: services.boss,
        principal,
        documents: body.documents,
        validationMs: webEnv().SVC_BODY_VALIDATION_MS,
      })),
  // Without `limit` the whole list is streamed; with it, one page and a Link header.
  listIngestedDocuments: async ({ request, query, principal, services }) =>
    documentListResponse(
      request,
      query.limit === null
        ? streamIngestedDocuments({ db: services.db, principal, afterId: query.cursor })
        : await listIngestedDocuments({ db: services.db, principal, limit: query.limit, afterId: query.cursor }),
    ),
  getIngestionDocument: async ({ path, principal, services }) =>
    toWire(DocumentDetailSchema, await getDocument({ db: services.db, principal, documentId: path.document_id })),
  deleteIngestionDocument: async ({ path, principal, services }) => {
    await deleteDocument({ db: services.db, index: services.index, principal, documentId: path.document_id });
    return null;
  },
  listCcPairDocuments: async ({ request, path, query, principal, services }) => {
    const list = { db: services.db, principal, ccPairId: path.cc_pair_id, afterId: query.cursor };
    return documentListResponse(
      request,
      query.limit === null ? await streamCcPairDocuments(list) : await listCcPairDocuments({ ...list, limit: query.limit }),
    );
  },
  streamEvents: async ({ request, query, principal, services }) =>
    new EventStreamResponse(
      await openEventStream({
        db: services.db,
        hub: services.events,
        principal,
        after: resumePosition(request, query.after),
        ccPairIds: query.cc_pair_id ?? null,
        types: query.types ?? null,
        signal: request.signal,
      }),
    ),
  searchDocuments: async ({ signal, deadlineAt, body, principal, services }) =>
    toWire(
      SearchResponseSchema,
      await observeSearch(() =>
        searchDocuments({
          db: services.db,
          index: services.index,
          principal,
          request: fromWire(SearchRequestSchema, body),
          // What is left of the whole request's deadline (run-rest-operation.ts).
          timeoutMs: Math.max(1, (deadlineAt ?? Date.now() + services.searchTimeoutMs) - Date.now()),
          signal,
        }),
      ),
    ),
  getConnectorIndexingStatus: async ({ request, body, principal, services }) =>
    toWire(ConnectorIndexingStatusResponseSchema, await listIndexingStatus({ db: services.db, principal, request: fromWire(IndexingStatusRequestSchema, body), signal: request.signal })),
  createCcPair: async ({ body, services }) =>
    toWire(CreatedCcPairSchema, await createCcPair({ db: services.db, name: body.name, source: body.source, accessType: body.access_type })),
  getCcPair: async ({ path, principal, services }) => toWire(CcPairSchema, await getCcPair({ db: services.db, principal, ccPairId: path.id })),
  updateCcPair: async ({ path, body, principal, services }) =>
    toWire(
      CcPairSchema,
      await updateCcPair({ db: services.db, boss: services.boss, principal, ccPairId: path.id, name: body.name, status: body.status }),
    ),
  setCcPairStatus: async ({ path, body, principal, services }) =>
    toWire(CcPairSchema, await updateCcPair({ db: services.db, boss: services.boss, principal, ccPairId: path.id, status: body.status })),
  deleteCcPair: async ({ path, principal, services }) =>
    toWire(CcPairSchema, await deleteCcPair({ db: services.db, boss: services.boss, principal, ccPairId: path.id })),
  createFederatedConnector: ({ body, principal, services }) =>
    createFederatedConnector({ db: services.db, principal, source: body.source, name: body.name }),
  deleteFederatedConnector: ({ path, principal, services }) => deleteFederatedConnector({ db: services.db, principal, id: path.id }),
  getIndexRebuildStatus: async ({ services }) => toWire(IndexRebuildStatusSchema, await getIndexRebuildStatus({ db: services.db })),
  startIndexRebuild: async ({ body, principal, services }) =>
    toWire(
      IndexRebuildStatusSchema,
      await startIndexRebuild({
        db: services.db,
        boss: services.boss,
        principal,
        chunkTokenLimit: body.chunk_token_limit,
        textSearchConfig: body.text_search_config,
      }),
    ),
  cancelIndexRebuild: async ({ principal, services }) =>
    toWire(IndexRebuildStatusSchema, await cancelIndexRebuild({ db: services.db, boss: services.boss, principal })),
  createWebhook: async ({ body, principal, services }) =>
    toWire(
      CreatedWebhookEndpointSchema,
      await createWebhookEndpoint({
        db: services.db,
        principal,
        url: body.url,
        ccPairIds: body.cc_pair_ids,
        eventTypes: body.event_types,
        allowPrivate: webEnv().SVC_WEBHOOK_ALLOW_PRIVATE,
      }),
    ),
  listWebhooks: async ({ principal, services }) => toWire(WebhookEndpointListSchema, await listWebhookEndpoints({ db: services.db, principal })),
  deleteWebhook: async ({ path, principal, services }) =>
    toWire(WebhookEndpointSchema, await deleteWebhookEndpoint({ db: services.db, principal, endpointId: path.id })),
  listWebhookDeliveries: async ({ path, query, principal, services }) =>
    toWire(WebhookDeliveryListSchema, await listWebhookDeliveries({ db: services.db, principal, endpointId: path.id, limit: query.limit })),
  resendWebhookDelivery: async ({ path, principal, services }) =>
    toWire(WebhookDeliverySchema, await resendWebhookDelivery({ db: services.db, principal, endpointId: path.id, deliveryId: path.delivery_id })),
  uploadUserFiles: async ({ request, principal, services }) => toWire(FileUploadResponseSchema, await handleUpload({ request, principal, services })),
  deleteUserFile: async ({ path, principal, services }) =>
    toWire(UserFileSchema, await deleteUploadedFile({ db: services.db, principal, fileId: path.file_id })),
  uploadProjectFiles: async ({ request, principal, services }) =>
    toWire(
      CategorizedFilesSnapshotSchema,
      await uploadProjectFiles({
        db: services.db,
        principal,
        files: await readUploadedFiles(request),
        maxFileBytes: webEnv().SVC_MAX_UPLOAD_FILE_BYTES,
      }),
    ),
  getOpenApiDocument: () => buildOpenApiDocument(),
  getMetrics: async ({ principal, services }) => {
    // The counts span every pair (docs/decisions.md "Scoped keys"). No principal: SVC_METRICS_TOKEN was the credential.
    const caller = principal as Principal | undefined;
    if (caller) requireUnscopedAdmin(caller);
    const { contentType, body } = await renderMetrics(services);
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  },
  getApiReference: () => apiReferencePage(),
  getApiReferenceScript: () => apiReferenceScript(),
};
