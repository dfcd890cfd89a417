export { createSvcClient, nextCursor, type ListDocumentsOptions, type SvcClient, type SvcClientOptions, type UploadFile } from "./create-svc-client";
export type { RetryOptions } from "./retrying-fetch";
export { SvcApiError, type ValidationError } from "./svc-api-error";
export type { components, operations, paths } from "./generated/openapi";

import type { components } from "./generated/openapi";

type Schemas = components["schemas"];
// The request and answer shapes callers name most, from svc's OpenAPI document.
export type IngestionDocument = Schemas["IngestionDocument"];
export type IngestionResult = Schemas["IngestionResult"];
export type IngestionBatchResponse = Schemas["IngestionBatchResponse"];
export type IngestionBatchItemResult = Schemas["IngestionBatchItemResult"];
export type DocumentDetail = Schemas["DocumentDetail"];
export type DocMinimalInfo = Schemas["DocMinimalInfo"];
export type SearchRequest = Schemas["SearchRequest"];
export type SearchResponse = Schemas["SearchResponse"];
export type IndexingStatusRequest = Schemas["IndexingStatusRequest"];
export type CcPair = Schemas["CcPair"];
export type CreateWebhookRequest = Schemas["CreateWebhookRequest"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type CreatedWebhookEndpoint = Schemas["CreatedWebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
