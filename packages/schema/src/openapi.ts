import { z } from "zod";
import { BasicExpertInfoSchema } from "./basic-expert-info";
import {
  CcPairSchema,
  CreateCcPairRequestSchema,
  CreatedCcPairSchema,
  CreateFederatedConnectorRequestSchema,
  FederatedConnectorIdSchema,
  FederatedConnectorSourceSchema,
  SettableCcPairStatusSchema,
  UpdateCcPairRequestSchema,
} from "./cc-pair";
import { DocumentSourceSchema } from "./document-source";
import { ErrorDetailSchema } from "./error-detail";
import { ExternalAccessSchema } from "./external-access";
import { FileUploadRequestSchema, FileUploadResponseSchema, RejectedFileSchema, UserFileSchema } from "./file-upload";
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
  DocMinimalInfoPageSchema,
  DocMinimalInfoSchema,
  DocumentDetailSchema,
  DEFAULT_DOCUMENT_PAGE_SIZE,
  MAX_DOCUMENT_PAGE_SIZE,
  StoredExternalAccessSchema,
  StoredOwnerSchema,
  StoredSectionSchema,
} from "./ingested-document";
import {
  DocumentBaseSchema,
  DocumentIndexingStatusSchema,
  IngestionDocumentSchema,
  IngestionResultSchema,
} from "./ingestion";
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
import { INT4_MAX, INT4_MIN } from "./pydantic-fields";
import { ImageSectionSchema, TextSectionSchema } from "./section";
import { HTTPValidationErrorSchema, ValidationErrorSchema } from "./validation-error";

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
  CreateFederatedConnectorRequest: CreateFederatedConnectorRequestSchema,
  FederatedConnectorSource: FederatedConnectorSourceSchema,
  SearchRequest: SearchRequestSchema,
  SearchFilters: SearchFiltersSchema,
  SearchTag: SearchTagSchema,
  SearchPrincipal: SearchPrincipalSchema,
  IndexRebuildRequest: IndexRebuildRequestSchema,
};

/** Described as the service sends them (`io: "output"`). */
const RESPONSE_COMPONENTS: Record<string, z.ZodType> = {
  IngestionResult: IngestionResultSchema,
  ErrorDetail: ErrorDetailSchema,
  ValidationError: ValidationErrorSchema,
  HTTPValidationError: HTTPValidationErrorSchema,
  DocumentSource: DocumentSourceSchema,
  AccessType: AccessTypeSchema,
  ConnectorCredentialPairStatus: ConnectorCredentialPairStatusSchema,
  IndexingStatus: IndexingStatusSchema,
  ConnectorIndexingStatusLite: ConnectorIndexingStatusLiteSchema,
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
  DocMinimalInfoPage: DocMinimalInfoPageSchema,
  DeletedDocument: DeletedDocumentSchema,
  SearchResponse: SearchResponseSchema,
  SearchResult: SearchResultSchema,
  SearchChunk: SearchChunkSchema,
  IndexGenerationStatus: IndexGenerationStatusSchema,
  IndexGenerationSettings: IndexGenerationSettingsSchema,
  IndexRebuildProgress: IndexRebuildProgressSchema,
  IndexRebuildStatus: IndexRebuildStatusSchema,
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

function errorResponse(description: string): JsonObject {
  return { description, content: jsonContent(componentRef("ErrorDetail")) };
}

const UNAUTHORIZED: JsonObject = {
  ...errorResponse("Missing or invalid API key"),
  headers: { "WWW-Authenticate": { description: "`Bearer`", schema: { type: "string" } } },
};
const FORBIDDEN = errorResponse("The API key's role or scope does not allow this operation");
const TOO_LARGE = errorResponse("The request body is larger than the configured limit");
const VALIDATION_FAILED: JsonObject = {
  description: "Validation Error",
  content: jsonContent(componentRef("HTTPValidationError")),
};
const BEARER: Array<Record<string, string[]>> = [{ BearerAuth: [] }];
const ADMIN_ONLY = errorResponse("The API key is not an admin key, or the pair is outside its scope");

/** An admin operation on one resource named by the integer path parameter `id`. */
function idParameter(description: string): JsonObject {
  return { name: "id", in: "path", required: true, description, schema: { type: "integer", minimum: INT4_MIN, maximum: INT4_MAX } };
}

/** `limit` and `cursor` of the document listings. */
const DOCUMENT_PAGE_PARAMETERS: JsonObject[] = [
  {
    name: "limit",
    in: "query",
    required: false,
    description: "Documents per page",
    schema: { type: "integer", minimum: 1, maximum: MAX_DOCUMENT_PAGE_SIZE, default: DEFAULT_DOCUMENT_PAGE_SIZE },
  },
  {
    name: "cursor",
    in: "query",
    required: false,
    description: "The `next_cursor` of the previous page; absent for the first page",
    schema: { type: "string" },
  },
];

const DOCUMENT_ID_PARAMETER: JsonObject = {
  name: "document_id",
  in: "path",
  required: true,
  description: "The document's id, URL-encoded (a `/` in the id is sent as `%2F`)",
  schema: { type: "string" },
};

function ok(schemaRef: string, description = "Successful Response"): JsonObject {
  return { description, content: jsonContent(componentRef(schemaRef)) };
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
    paths: {
      "/svc-api/ingestion": {
        post: {
          operationId: "upsertIngestionDocument",
          summary: "Upsert a document",
          description:
            "Creates or updates one document. A 200 means the document was accepted; indexing follows asynchronously.",
          tags: ["ingestion"],
          security: BEARER,
          requestBody: { required: true, content: jsonContent(componentRef("IngestionDocument")) },
          responses: {
            "200": { description: "Successful Response", content: jsonContent(componentRef("IngestionResult")) },
            "400": errorResponse("The connector-credential pair does not exist"),
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "413": TOO_LARGE,
            "422": VALIDATION_FAILED,
          },
        },
        get: {
          operationId: "listIngestedDocuments",
          summary: "List ingested documents",
          description:
            "The documents created through the ingestion API, ordered by id, a page at a time. A key scoped to pairs lists the documents of pairs it may see.",
          tags: ["ingestion"],
          security: BEARER,
          parameters: DOCUMENT_PAGE_PARAMETERS,
          responses: {
            "200": ok("DocMinimalInfoPage"),
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/svc-api/ingestion/{document_id}": {
        get: {
          operationId: "getIngestionDocument",
          summary: "Get a document and its indexing status",
          description:
            "The stored document (its DocumentBase fields) with `indexing_status`, the current and indexed versions, the chunk count, the last error, the attempts and the pairs it belongs to.",
          tags: ["ingestion"],
          security: BEARER,
          parameters: [DOCUMENT_ID_PARAMETER],
          responses: {
            "200": ok("DocumentDetail"),
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "404": errorResponse("No such document, or none the key may see"),
          },
        },
        delete: {
          operationId: "deleteIngestionDocument",
          summary: "Delete an ingested document",
          description:
            "Removes the document, its sections, its chunks and its links to pairs, and updates the pairs' `docs_indexed`, in one transaction.",
          tags: ["ingestion"],
          security: BEARER,
          parameters: [DOCUMENT_ID_PARAMETER],
          responses: {
            "200": ok("DeletedDocument"),
            "400": errorResponse("The document was not created through the ingestion API"),
            "401": UNAUTHORIZED,
            "403": errorResponse("The API key's role does not allow this, or the document belongs to a pair outside its scope"),
            "404": errorResponse("No such document, or none the key may see"),
          },
        },
      },
      "/svc-api/connector-docs/{cc_pair_id}": {
        get: {
          operationId: "listCcPairDocuments",
          summary: "List a connector-credential pair's documents",
          description: "The documents linked to the pair, ordered by id, a page at a time.",
          tags: ["ingestion"],
          security: BEARER,
          parameters: [
            { name: "cc_pair_id", in: "path", required: true, description: "The pair's id", schema: { type: "integer", minimum: INT4_MIN, maximum: INT4_MAX } },
            ...DOCUMENT_PAGE_PARAMETERS,
          ],
          responses: {
            "200": ok("DocMinimalInfoPage"),
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "404": errorResponse("No such pair, or none the key may see"),
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/svc-api/search": {
        post: {
          operationId: "searchDocuments",
          summary: "Search the indexed documents",
          description:
            "Full-text search over the indexed chunks, documents ranked by their best chunk, each with its best 3 chunks. " +
            "A document is visible when its `external_access` is absent and a pair it belongs to is public, or `is_public` is true, " +
            "or the principal's email or one of its groups is listed. An admin key sees everything, or exactly what `principal` would see; " +
            "a curator key sees everything (unscoped) or public documents plus those of its pairs (scoped), and may not pass `principal`.",
          tags: ["search"],
          security: BEARER,
          requestBody: { required: true, content: jsonContent(componentRef("SearchRequest")) },
          responses: {
            "200": ok("SearchResponse"),
            "401": UNAUTHORIZED,
            "403": errorResponse("The API key's role does not allow this, or a curator key passed `principal`"),
            "413": TOO_LARGE,
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/connector/indexing-status": {
        post: {
          operationId: "getConnectorIndexingStatus",
          summary: "Get connector indexing status",
          description: "Connector-credential pairs with their indexing status, grouped by source, filtered and paged.",
          tags: ["connectors"],
          security: BEARER,
          requestBody: { required: true, content: jsonContent(componentRef("IndexingStatusRequest")) },
          responses: {
            "200": {
              description: "Successful Response",
              content: jsonContent({ type: "array", items: componentRef("ConnectorIndexingStatusGroup") }),
            },
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/cc-pair": {
        post: {
          operationId: "createCcPair",
          summary: "Create a connector-credential pair",
          description: "Creates a connector, a credential and the pair joining them; the pair starts as `SCHEDULED`.",
          tags: ["connectors"],
          security: BEARER,
          requestBody: { required: true, content: jsonContent(componentRef("CreateCcPairRequest")) },
          responses: {
            "200": ok("CreatedCcPair"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/cc-pair/{id}": {
        get: {
          operationId: "getCcPair",
          summary: "Get a connector-credential pair",
          tags: ["connectors"],
          security: BEARER,
          parameters: [idParameter("The pair's id")],
          responses: {
            "200": ok("CcPair"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "404": errorResponse("No such pair"),
            "422": VALIDATION_FAILED,
          },
        },
        patch: {
          operationId: "updateCcPair",
          summary: "Rename, pause or resume a connector-credential pair",
          description:
            "`status: PAUSED` pauses the pair (documents are still accepted; their indexing waits); `status: ACTIVE` resumes a paused pair.",
          tags: ["connectors"],
          security: BEARER,
          parameters: [idParameter("The pair's id")],
          requestBody: { required: true, content: jsonContent(componentRef("UpdateCcPairRequest")) },
          responses: {
            "200": ok("CcPair"),
            "400": errorResponse("The default pair cannot be changed"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "404": errorResponse("No such pair"),
            "409": errorResponse("The pair is being deleted"),
            "422": VALIDATION_FAILED,
          },
        },
        delete: {
          operationId: "deleteCcPair",
          summary: "Delete a connector-credential pair",
          description:
            "Marks the pair `DELETING` and queues its removal: a background job removes its links, every document no other pair still holds, its index attempts, then the pair.",
          tags: ["connectors"],
          security: BEARER,
          parameters: [idParameter("The pair's id")],
          responses: {
            "202": ok("CcPair", "Deletion accepted; the pair is DELETING until the job has run"),
            "400": errorResponse("The default pair cannot be deleted"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "404": errorResponse("No such pair"),
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/federated-connector": {
        post: {
          operationId: "createFederatedConnector",
          summary: "Create a federated connector",
          description: "A connector that searches its source live and indexes nothing; it shows in the status listing.",
          tags: ["connectors"],
          security: BEARER,
          requestBody: { required: true, content: jsonContent(componentRef("CreateFederatedConnectorRequest")) },
          responses: {
            "200": ok("FederatedConnectorId"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/federated-connector/{id}": {
        delete: {
          operationId: "deleteFederatedConnector",
          summary: "Delete a federated connector",
          tags: ["connectors"],
          security: BEARER,
          parameters: [idParameter("The federated connector's id")],
          responses: {
            "200": ok("FederatedConnectorId"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
            "404": errorResponse("No such federated connector"),
            "422": VALIDATION_FAILED,
          },
        },
      },
      "/manage/admin/search-index/rebuild": {
        get: {
          operationId: "getIndexRebuildStatus",
          summary: "Get the search index's generation and rebuild status",
          description:
            "The generation search reads and its settings (chunk size, text-search configuration), the rebuild in progress with documents done, failed and total (null when idle), and the last rebuild that ended.",
          tags: ["search"],
          security: BEARER,
          responses: {
            "200": ok("IndexRebuildStatus"),
            "401": UNAUTHORIZED,
            "403": ADMIN_ONLY,
          },
        },
        post: {
          operationId: "startIndexRebuild",
          summary: "Rebuild the search index",
          description:
            "Builds a new generation of the search index from every indexed document, in the background, with the given chunk size and text-search configuration (the current ones when left out; the body is optional). " +
            "Search keeps reading the current generation and new documents are written to both; when every document is written the new generation replaces the old one at once. Needs an admin key without scope.",
          tags: ["search"],
          security: BEARER,
          requestBody: { required: false, content: jsonContent(componentRef("IndexRebuildRequest")) },
          responses: {
            "202": ok("IndexRebuildStatus", "Rebuild started; its progress is in `rebuild`"),
            "401": UNAUTHORIZED,
            "403": errorResponse("The API key is not an admin key, or is scoped to pairs"),
            "409": errorResponse("A rebuild is already running"),
            "413": TOO_LARGE,
            "422": VALIDATION_FAILED,
          },
        },
        delete: {
          operationId: "cancelIndexRebuild",
          summary: "Cancel the running rebuild",
          description: "The new generation is dropped (its chunks are deleted in the background); search and indexing carry on with the current one.",
          tags: ["search"],
          security: BEARER,
          responses: {
            "200": ok("IndexRebuildStatus"),
            "401": UNAUTHORIZED,
            "403": errorResponse("The API key is not an admin key, or is scoped to pairs"),
            "404": errorResponse("No rebuild is running"),
          },
        },
      },
      "/user/file/upload": {
        post: {
          operationId: "uploadUserFiles",
          summary: "Upload images",
          description:
            "Stores PNG, JPEG, GIF or WebP images; the returned `file_id` is what a section's `image_file_id` names.",
          tags: ["files"],
          security: BEARER,
          requestBody: {
            required: true,
            content: { "multipart/form-data": { schema: componentRef("FileUploadRequest") } },
          },
          responses: {
            "200": { description: "Successful Response", content: jsonContent(componentRef("FileUploadResponse")) },
            "401": UNAUTHORIZED,
            "403": FORBIDDEN,
            "413": TOO_LARGE,
            "422": VALIDATION_FAILED,
          },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: { BearerAuth: { type: "http", scheme: "bearer" } },
    },
  };
}
