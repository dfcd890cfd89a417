import createClient from "openapi-fetch";
import type { components, paths } from "./generated/openapi";
import { retryingFetch, type RetryOptions } from "./retrying-fetch";
import { SvcApiError } from "./svc-api-error";

type Schemas = components["schemas"];

export interface SvcClientOptions {
  /** svc's API root: `http://host:port/api`. */
  baseUrl: string;
  /** An API key (`Authorization: Bearer …`). */
  apiKey: string;
  /** Retry 429 and 503 answers after their `Retry-After` (off by default; `true` for the defaults). */
  retry?: boolean | RetryOptions;
  /** The fetch to send requests with (globalThis.fetch by default). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface ListDocumentsOptions {
  /** List one pair's documents (`/svc-api/connector-docs/{id}`) instead of the ingested ones. */
  ccPairId?: number;
  /** Documents per page (1–1,000); 500 by default. */
  limit?: number;
}

/** A file to upload: a File (its name is sent), or a Blob with a name. */
export type UploadFile = File | { name: string; data: Blob };

const DEFAULT_PAGE_SIZE = 500;

/** What openapi-fetch answers for one call. */
interface CallResult<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/**
 * A client of svc's REST API. Requests and answers are typed by svc's OpenAPI document; every
 * non-2xx answer throws SvcApiError.
 */
export function createSvcClient(options: SvcClientOptions) {
  const retry = options.retry === true ? {} : options.retry || undefined;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(send, retry),
  });

  /** The body of a 2xx answer; anything else thrown as SvcApiError. */
  async function answer<Data>(call: Promise<CallResult<Data>>): Promise<Data> {
    const { data, error, response } = await call;
    if (!response.ok) throw SvcApiError.fromResponse(response, error);
    return data as Data;
  }

  const listPage = (query: { limit: number; cursor?: string }, ccPairId: number | undefined) =>
    ccPairId === undefined
      ? api.GET("/svc-api/ingestion", { params: { query } })
      : api.GET("/svc-api/connector-docs/{cc_pair_id}", { params: { path: { cc_pair_id: ccPairId }, query } });

  return {
    /** POST /svc-api/ingestion: creates or replaces one document. */
    ingest: (body: Schemas["IngestionDocument"]) => answer(api.POST("/svc-api/ingestion", { body })),
    /** POST /svc-api/ingestion/batch: 1–1,000 documents, one result each (accepted or its error), in order. */
    ingestBatch: (documents: Schemas["IngestionDocument"][]) =>
      answer(api.POST("/svc-api/ingestion/batch", { body: { documents } })),
    /** GET /svc-api/ingestion/{document_id}: the stored document and its indexing status. */
    getDocument: (documentId: string) =>
      answer(api.GET("/svc-api/ingestion/{document_id}", { params: { path: { document_id: documentId } } })),
    /** DELETE /svc-api/ingestion/{document_id}. */
    deleteDocument: async (documentId: string): Promise<void> => {
      await answer(api.DELETE("/svc-api/ingestion/{document_id}", { params: { path: { document_id: documentId } } }));
    },
    /**
     * The ingested documents (or one pair's), page after page as the `Link: rel="next"` headers
     * lead: `for await (const document of client.listDocuments()) …`.
     */
    listDocuments: async function* ({ ccPairId, limit = DEFAULT_PAGE_SIZE }: ListDocumentsOptions = {}): AsyncGenerator<
      Schemas["DocMinimalInfo"]
    > {
      let cursor: string | undefined;
      do {
        const { data, error, response } = await listPage({ limit, ...(cursor === undefined ? {} : { cursor }) }, ccPairId);
        if (!response.ok || !data) throw SvcApiError.fromResponse(response, error);
        yield* data;
        cursor = nextCursor(response.headers.get("link"));
      } while (cursor !== undefined);
    },
    /** POST /svc-api/search. */
    search: (request: Schemas["SearchRequest"]) => answer(api.POST("/svc-api/search", { body: request })),
    /** POST /manage/admin/connector/indexing-status. */
    indexingStatus: (request: Schemas["IndexingStatusRequest"] = {}) =>
      answer(api.POST("/manage/admin/connector/indexing-status", { body: request })),
    /** POST /user/file/upload: images whose `file_id` a section's `image_file_id` can name. */
    uploadFiles: (files: UploadFile[]) =>
      answer(api.POST("/user/file/upload", { body: { files: [] }, bodySerializer: () => filesForm(files) })),
    /** POST /user/projects/file/upload: the same, answered as the newer releases' CategorizedFilesSnapshot. */
    uploadProjectFiles: (files: UploadFile[]) =>
      answer(
        api.POST("/user/projects/file/upload", { body: { files: [] }, bodySerializer: () => filesForm(files) }),
      ),
    /** DELETE /user/file/{file_id}: the deleted file; 409 while an image section names it. */
    deleteFile: (fileId: string) => answer(api.DELETE("/user/file/{file_id}", { params: { path: { file_id: fileId } } })),
    /** POST /manage/admin/cc-pair. */
    createCcPair: (request: Schemas["CreateCcPairRequest"]) => answer(api.POST("/manage/admin/cc-pair", { body: request })),
    /** GET /manage/admin/cc-pair/{id}. */
    getCcPair: (id: number) => answer(api.GET("/manage/admin/cc-pair/{id}", { params: { path: { id } } })),
    /** PATCH /manage/admin/cc-pair/{id}: rename, pause or resume. */
    updateCcPair: (id: number, request: Schemas["UpdateCcPairRequest"]) =>
      answer(api.PATCH("/manage/admin/cc-pair/{id}", { params: { path: { id } }, body: request })),
    /** PUT /manage/admin/cc-pair/{id}/status: `ACTIVE` or `PAUSED`. */
    setCcPairStatus: (id: number, status: Schemas["SettableCcPairStatus"]) =>
      answer(api.PUT("/manage/admin/cc-pair/{id}/status", { params: { path: { id } }, body: { status } })),
    /** DELETE /manage/admin/cc-pair/{id}: accepted (202); the pair is DELETING until its job ran. */
    deleteCcPair: (id: number) => answer(api.DELETE("/manage/admin/cc-pair/{id}", { params: { path: { id } } })),
    /** POST /manage/admin/federated-connector. */
    createFederatedConnector: (request: Schemas["CreateFederatedConnectorRequest"]) =>
      answer(api.POST("/manage/admin/federated-connector", { body: request })),
    /** DELETE /manage/admin/federated-connector/{id}. */
    deleteFederatedConnector: (id: number) =>
      answer(api.DELETE("/manage/admin/federated-connector/{id}", { params: { path: { id } } })),
    /** GET /manage/admin/search-index/rebuild. */
    indexRebuildStatus: () => answer(api.GET("/manage/admin/search-index/rebuild")),
    /** POST /manage/admin/search-index/rebuild. */
    startIndexRebuild: (request: Schemas["IndexRebuildRequest"] = {}) =>
      answer(api.POST("/manage/admin/search-index/rebuild", { body: request })),
    /** DELETE /manage/admin/search-index/rebuild. */
    cancelIndexRebuild: () => answer(api.DELETE("/manage/admin/search-index/rebuild")),
    /** POST /manage/admin/webhook: the endpoint with its `secret` (shown only here). */
    createWebhook: (request: Schemas["CreateWebhookRequest"]) => answer(api.POST("/manage/admin/webhook", { body: request })),
    /** GET /manage/admin/webhook: the endpoints the key may see, without secrets. */
    listWebhooks: () => answer(api.GET("/manage/admin/webhook")),
    /** DELETE /manage/admin/webhook/{id}: the deleted endpoint. */
    deleteWebhook: (id: number) => answer(api.DELETE("/manage/admin/webhook/{id}", { params: { path: { id } } })),
    /** GET /manage/admin/webhook/{id}/deliveries: the last `limit` (50 by default) deliveries, newest first. */
    listWebhookDeliveries: (id: number, limit?: number) =>
      answer(api.GET("/manage/admin/webhook/{id}/deliveries", { params: { path: { id }, query: limit === undefined ? {} : { limit } } })),
    /** POST /manage/admin/webhook/{id}/deliveries/{delivery_id}/resend: sent again now, same event id. */
    resendWebhookDelivery: (id: number, deliveryId: number) =>
      answer(api.POST("/manage/admin/webhook/{id}/deliveries/{delivery_id}/resend", { params: { path: { id, delivery_id: deliveryId } } })),
    /** GET /health: liveness. */
    health: () => answer(api.GET("/health")),
    /** GET /ready: readiness; a 503 (a check unavailable) throws, its checks in the error's `body`. */
    ready: () => answer(api.GET("/ready")),
    /** GET /metrics: the Prometheus text (an unscoped admin key, or the client's apiKey set to SVC_METRICS_TOKEN). */
    metrics: () => answer(api.GET("/metrics", { parseAs: "text" })),
  };
}

export type SvcClient = ReturnType<typeof createSvcClient>;

/** The multipart body of an upload: one `files` part per file. */
function filesForm(files: UploadFile[]): FormData {
  const form = new FormData();
  for (const file of files) {
    if (file instanceof File) form.append("files", file);
    else form.append("files", file.data, file.name);
  }
  return form;
}

/** The `cursor` of a `Link: <…>; rel="next"` header (RFC 8288); undefined on the last page. */
export function nextCursor(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!match?.[1] || !/(^|;)\s*rel="?next"?\s*(;|$)/.test(match[2] ?? "")) continue;
    return new URL(match[1], "http://link.invalid").searchParams.get("cursor") ?? undefined;
  }
  return undefined;
}
