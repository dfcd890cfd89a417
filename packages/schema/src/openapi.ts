import { z } from "zod";
import { EventsMissedSchema, SvcEventSchema } from "./events";
import { BasicExpertInfoSchema } from "./basic-expert-info";
import {
  CcPairSchema,
  CreateCcPairRequestSchema,
  CreatedCcPairSchema,
  CreateFederatedConnectorRequestSchema,
  FederatedConnectorIdSchema,
  CcStatusUpdateRequestSchema,
  SettableCcPairStatusSchema,
  UpdateCcPairRequestSchema,
} from "./cc-pair";
import { DocumentSourceSchema } from "./document-source";
import { DEFAULT_CREDENTIAL_FAILURES_PER_MINUTE } from "./api-key";
import { ErrorDetailSchema } from "./error-detail";
import { ServiceCheckSchema, ServiceInstanceSchema, ServiceStatusSchema } from "./service-status";
import { ExternalAccessSchema } from "./external-access";
import { FederatedConnectorSourceSchema } from "./federated-connector-source";
import {
  CategorizedFilesSnapshotSchema,
  FileUploadRequestSchema,
  FileUploadResponseSchema,
  RejectedFileSchema,
  UserFileSchema,
  UserFileSnapshotSchema,
} from "./file-upload";
import {
  AccessTypeSchema,
  ConnectorCredentialPairStatusSchema,
  ConnectorIndexingStatusGroupSchema,
  ConnectorIndexingStatusLiteSchema,
  ConnectorStatusSummarySchema,
  DocsCountOperatorSchema,
  FederatedConnectorStatusSchema,
  IndexingStatusRequestSchema,
  IndexingStatusSchema,
} from "./indexing-status";
import {
  DeletedDocumentSchema,
  DocMinimalInfoSchema,
  DocumentDetailSchema,
  StoredExternalAccessSchema,
  StoredOwnerSchema,
  StoredSectionSchema,
} from "./ingested-document";
import {
  DocumentBaseSchema,
  DocumentIndexingStatusSchema,
  IngestionDocumentSchema,
  IngestionConflictSchema,
  IngestionResultSchema,
} from "./ingestion";
import {
  IngestionBatchItemErrorSchema,
  IngestionBatchItemResultSchema,
  IngestionBatchRequestSchema,
  IngestionBatchResponseSchema,
} from "./ingestion-batch";
import {
  SearchChunkSchema,
  SearchFiltersSchema,
  SearchPrincipalSchema,
  SearchRequestSchema,
  SearchResponseSchema,
  SearchResultSchema,
  SearchTagSchema,
} from "./search";
import {
  IndexGenerationSettingsSchema,
  IndexGenerationStatusSchema,
  IndexRebuildProgressSchema,
  IndexRebuildRequestSchema,
  IndexRebuildStatusSchema,
} from "./search-index";
import { ImageSectionSchema, TextSectionSchema } from "./section";
import { REST_CONTRACT, type RestBody, type RestEndpoint, type RestParameters, type RestResponse } from "./rest-contract";
import { HTTPValidationErrorSchema, ValidationErrorSchema } from "./validation-error";
import { EventTypeSchema } from "./events";
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookRequestSchema,
  WebhookDeliverySchema,
  WebhookDeliveryStatusSchema,
  WebhookEndpointSchema,
} from "./webhook";

type JsonObject = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
  security: Array<Record<string, string[]>>;
}

export interface BuildOpenApiDocumentOptions {
  /** Base of the paths; the API root, `/api` by default. */
  serverUrl?: string;
}

/** Described as clients send them: lax inputs, defaults optional (`io: "input"`). */
const REQUEST_COMPONENTS: Record<string, z.ZodType> = {
  IngestionDocument: IngestionDocumentSchema,
  IngestionBatchRequest: IngestionBatchRequestSchema,
  DocumentBase: DocumentBaseSchema,
  TextSection: TextSectionSchema,
  ImageSection: ImageSectionSchema,
  BasicExpertInfo: BasicExpertInfoSchema,
  ExternalAccess: ExternalAccessSchema,
  DocumentSource: DocumentSourceSchema,
  AccessType: AccessTypeSchema,
  IndexingStatus: IndexingStatusSchema,
  DocsCountOperator: DocsCountOperatorSchema,
  IndexingStatusRequest: IndexingStatusRequestSchema,
  FileUploadRequest: FileUploadRequestSchema,
  CreateCcPairRequest: CreateCcPairRequestSchema,
  UpdateCcPairRequest: UpdateCcPairRequestSchema,
  SettableCcPairStatus: SettableCcPairStatusSchema,
  CCStatusUpdateRequest: CcStatusUpdateRequestSchema,
  CreateFederatedConnectorRequest: CreateFederatedConnectorRequestSchema,
  FederatedConnectorSource: FederatedConnectorSourceSchema,
  SearchRequest: SearchRequestSchema,
  SearchFilters: SearchFiltersSchema,
  SearchTag: SearchTagSchema,
  SearchPrincipal: SearchPrincipalSchema,
  IndexRebuildRequest: IndexRebuildRequestSchema,
  CreateWebhookRequest: CreateWebhookRequestSchema,
  EventType: EventTypeSchema,
};

/** Described as the service sends them (`io: "output"`). */
const RESPONSE_COMPONENTS: Record<string, z.ZodType> = {
  // What GET /svc-api/events sends in each message's `data` (its 200 is text/event-stream).
  SvcEvent: SvcEventSchema,
  EventsMissed: EventsMissedSchema,
  IngestionResult: IngestionResultSchema,
  IngestionConflict: IngestionConflictSchema,
  IngestionBatchItemError: IngestionBatchItemErrorSchema,
  IngestionBatchItemResult: IngestionBatchItemResultSchema,
  IngestionBatchResponse: IngestionBatchResponseSchema,
  ErrorDetail: ErrorDetailSchema,
  ValidationError: ValidationErrorSchema,
  HTTPValidationError: HTTPValidationErrorSchema,
  DocumentSource: DocumentSourceSchema,
  AccessType: AccessTypeSchema,
  ConnectorCredentialPairStatus: ConnectorCredentialPairStatusSchema,
  IndexingStatus: IndexingStatusSchema,
  ConnectorIndexingStatusLite: ConnectorIndexingStatusLiteSchema,
  FederatedConnectorSource: FederatedConnectorSourceSchema,
  FederatedConnectorStatus: FederatedConnectorStatusSchema,
  ConnectorStatusSummary: ConnectorStatusSummarySchema,
  ConnectorIndexingStatusGroup: ConnectorIndexingStatusGroupSchema,
  UserFile: UserFileSchema,
  RejectedFile: RejectedFileSchema,
  FileUploadResponse: FileUploadResponseSchema,
  CreatedCcPair: CreatedCcPairSchema,
  CcPair: CcPairSchema,
  FederatedConnectorId: FederatedConnectorIdSchema,
  DocumentIndexingStatus: DocumentIndexingStatusSchema,
  StoredSection: StoredSectionSchema,
  StoredOwner: StoredOwnerSchema,
  StoredExternalAccess: StoredExternalAccessSchema,
  DocumentDetail: DocumentDetailSchema,
  DocMinimalInfo: DocMinimalInfoSchema,
  UserFileSnapshot: UserFileSnapshotSchema,
  CategorizedFilesSnapshot: CategorizedFilesSnapshotSchema,
  DeletedDocument: DeletedDocumentSchema,
  SearchResponse: SearchResponseSchema,
  SearchResult: SearchResultSchema,
  SearchChunk: SearchChunkSchema,
  IndexGenerationStatus: IndexGenerationStatusSchema,
  IndexGenerationSettings: IndexGenerationSettingsSchema,
  IndexRebuildProgress: IndexRebuildProgressSchema,
  IndexRebuildStatus: IndexRebuildStatusSchema,
  ServiceStatus: ServiceStatusSchema,
  ServiceCheck: ServiceCheckSchema,
  ServiceInstance: ServiceInstanceSchema,
  EventType: EventTypeSchema,
  WebhookEndpoint: WebhookEndpointSchema,
  CreatedWebhookEndpoint: CreatedWebhookEndpointSchema,
  WebhookDelivery: WebhookDeliverySchema,
  WebhookDeliveryStatus: WebhookDeliveryStatusSchema,
};

const componentRef = (id: string): JsonObject => ({ $ref: `#/components/schemas/${id}` });
const jsonContent = (schema: JsonObject): JsonObject => ({ "application/json": { schema } });

/** Keeps generated schemas readable: defaults that zod drops behind a preprocess step are put
 * back; the safe-integer bounds zod writes on every integer and its date-time pattern are left out. */
const tidy: NonNullable<z.core.ToJSONSchemaParams["override"]> = ({ zodSchema, jsonSchema }) => {
  const def = zodSchema._zod.def;
  if (def.type === "default") {
    jsonSchema.default = JSON.parse(JSON.stringify(def.defaultValue)) as unknown;
  }
  // zod's date-time pattern only restates the format (and would contradict the lax request side).
  if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
  if (jsonSchema.type === "integer") {
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  }
};

function componentSchemas(entries: Record<string, z.ZodType>, io: "input" | "output"): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(entries)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    override: tidy,
  });
  const components: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    if (!(id in entries)) throw new Error(`OpenAPI: unexpected shared schema "${id}"`);
    const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject;
    components[id] = rest;
  }
  return components;
}

function mergeComponents(...groups: Array<Record<string, JsonObject>>): Record<string, JsonObject> {
  const merged: Record<string, JsonObject> = {};
  for (const group of groups) {
    for (const [id, schema] of Object.entries(group)) {
      const existing = merged[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
        throw new Error(`OpenAPI: component "${id}" differs between request and response`);
      }
      merged[id] = schema;
    }
  }
  return merged;
}

const BEARER: Array<Record<string, string[]>> = [{ BearerAuth: [] }];

/** A body or response schema: a component by reference, or an array of one. */
function schemaRef(schema: z.ZodType, components: Record<string, z.ZodType>): JsonObject {
  const id = Object.entries(components).find(([, component]) => component === schema)?.[0];
  if (id) return componentRef(id);
  const def = schema._zod.def;
  if (def.type === "array") return { type: "array", items: schemaRef((def as z.core.$ZodArrayDef).element as z.ZodType, components) };
  throw new Error("OpenAPI: a REST contract schema is not a component (add it to the component lists)");
}

/** Path or query parameters, one per property of their schema, as clients send them. */
function parametersOf(parameters: RestParameters | undefined, location: "path" | "query"): JsonObject[] {
  if (!parameters) return [];
  const rendered = z.toJSONSchema(parameters.schema, { io: "input", target: "draft-2020-12", override: tidy }) as {
    properties?: Record<string, JsonObject>;
    required?: string[];
  };
  return Object.entries(rendered.properties ?? {}).map(([name, schema]) => ({
    name,
    in: location,
    required: location === "path" || (rendered.required ?? []).includes(name),
    description: parameters.descriptions[name],
    schema,
  }));
}

function requestBodyOf(body: RestBody): JsonObject {
  const schema = schemaRef(body.schema, REQUEST_COMPONENTS);
  if (body.type === "multipart") return { required: true, content: { "multipart/form-data": { schema } } };
  return { required: body.required, content: jsonContent(schema) };
}

function responseOf(response: RestResponse): JsonObject {
  const rendered: JsonObject = { description: response.description };
  if (response.schema) rendered.content = jsonContent(schemaRef(response.schema, RESPONSE_COMPONENTS));
  else if (response.contentType) rendered.content = { [response.contentType]: { schema: { type: "string" } } };
  if (response.headers) {
    rendered.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, header]) => [name, { ...header, schema: { type: "string" } }]),
    );
  }
  return rendered;
}

/** One operation of the document, from its contract entry. */
function operationOf(operationId: string, entry: RestEndpoint): JsonObject {
  const parameters = [...parametersOf(entry.pathParams, "path"), ...parametersOf(entry.query, "query")];
  return {
    operationId,
    summary: entry.summary,
    ...(entry.description ? { description: entry.description } : {}),
    tags: [entry.tag],
    // `[]` overrides the document's default: public entries take no key.
    security: entry.auth === "public" ? [] : BEARER,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(entry.body ? { requestBody: requestBodyOf(entry.body) } : {}),
    responses: Object.fromEntries(Object.entries(responsesOf(entry)).map(([status, response]) => [status, responseOf(response)])),
  };
}

const GUESSING = `${DEFAULT_CREDENTIAL_FAILURES_PER_MINUTE} (by default) failed key checks or sign-ins from the client's address within a minute`;

/**
 * What the transport answers besides the entry's own: a JSON body that is not UTF-8 is a 400; an
 * entry that takes a key is refused with 429 after too many failed key checks from one address.
 */
function responsesOf(entry: RestEndpoint): RestEndpoint["responses"] {
  const responses = { ...entry.responses };
  if (entry.auth !== "public") {
    const own = responses[429];
    responses[429] = own
      ? { ...own, description: `${own.description}; or ${GUESSING}` }
      : { schema: ErrorDetailSchema, description: `${GUESSING}; try again later`, headers: { "Retry-After": { description: "Seconds to wait before trying again" } } };
  }
  if (entry.body?.type !== "json") return responses;
  const own = responses[400];
  const description = own ? `${own.description}; or the body is not UTF-8` : "The body is not UTF-8";
  return { ...responses, 400: { schema: ErrorDetailSchema, ...own, description } };
}

/** The document's paths: every documented entry of the REST contract. */
function pathsOf(contract: Record<string, RestEndpoint>): OpenApiDocument["paths"] {
  const paths: OpenApiDocument["paths"] = {};
  for (const [operationId, entry] of Object.entries(contract)) {
    if (entry.undocumented) continue;
    (paths[entry.path] ??= {})[entry.method.toLowerCase()] = operationOf(operationId, entry);
  }
  return paths;
}

/** The OpenAPI 3.1 description of the REST surface, generated from the schemas the routes use. */
export function buildOpenApiDocument(options: BuildOpenApiDocumentOptions = {}): OpenApiDocument {
  const schemas = mergeComponents(
    componentSchemas(REQUEST_COMPONENTS, "input"),
    componentSchemas(RESPONSE_COMPONENTS, "output"),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "svc",
      version: "Development",
      description:
        "Document ingestion, per-document status, search, search-index rebuilds, connector management and connector indexing status.",
    },
    servers: [{ url: options.serverUrl ?? "/api" }],
    security: BEARER,
    paths: pathsOf(REST_CONTRACT),
    components: {
      schemas,
      securitySchemes: { BearerAuth: { type: "http", scheme: "bearer" } },
    },
  };
}
