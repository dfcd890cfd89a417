import { z } from "zod";
import { IngestionResultSchema } from "./ingestion";
import { pyList, pyModel } from "./pydantic-fields";
import { ValidationErrorSchema } from "./validation-error";

/** Most documents one bulk call takes (docs/decisions.md "Bulk ingestion"); more is a 413. */
export const MAX_INGESTION_BATCH_SIZE = 1_000;

/**
 * Request body of POST /svc-api/ingestion/batch. Its items are validated one by one (each gets its own
 * result; a 422 of the whole call only past the bounds of docs/decisions.md "Limits and overload"), so
 * here a document is any value; the OpenAPI document still describes each as an IngestionDocument,
 * which is what clients must send.
 */
export const IngestionBatchRequestSchema = pyModel("IngestionBatchRequest", {
  documents: pyList(z.unknown().meta({ $ref: "#/components/schemas/IngestionDocument" }), { minLength: 1 }),
});
export type IngestionBatchRequest = z.infer<typeof IngestionBatchRequestSchema>;

/** Why one item of a batch was not stored: the status and detail the single call would have answered. */
export const IngestionBatchItemErrorSchema = z.object({
  error: z.object({
    status: z.union([z.literal(400), z.literal(403), z.literal(409), z.literal(422)]),
    detail: z.union([z.string(), z.array(ValidationErrorSchema)]),
    /** Only on a 409 of `if_version`: the version stored now (null: no such document). */
    current_version: z.int().nullable().optional(),
  }),
});
export type IngestionBatchItemError = z.infer<typeof IngestionBatchItemErrorSchema>;

export const IngestionBatchItemResultSchema = z.union([IngestionResultSchema, IngestionBatchItemErrorSchema]);
export type IngestionBatchItemResult = z.infer<typeof IngestionBatchItemResultSchema>;

/** Response body of POST /svc-api/ingestion/batch: one result per document, in request order. */
export const IngestionBatchResponseSchema = z.object({
  results: z.array(IngestionBatchItemResultSchema),
});
export type IngestionBatchResponse = z.infer<typeof IngestionBatchResponseSchema>;
