import { z } from "zod";
import { IngestionResultSchema } from "./ingestion";
import { isPlainObject, pyList, pyModel } from "./pydantic-fields";
import { ValidationErrorSchema } from "./validation-error";

/** Most documents one bulk call takes (docs/decisions.md "Bulk ingestion"); more is a 413. */
export const MAX_INGESTION_BATCH_SIZE = 1_000;

/**
 * Most sections one ingestion request may carry, its documents together (docs/decisions.md "Limits
 * and overload"): PostgreSQL writes ~25,000 section rows a second here, so a million took 40 s and
 * passed the statement timeout. More is a 413, counted on the parsed body before any validation.
 */
export const MAX_SECTIONS_PER_REQUEST = 100_000;

/** The 413 detail of an ingestion body (`{document}`) holding too many sections, if it does. */
export const excessSectionsInDocument = (body: unknown) => excessSections(sectionCount(body));

/** The 413 detail of a batch body (`{documents: [{document}, …]}`) holding too many sections, if it does. */
export function excessSectionsInBatch(body: unknown): string | undefined {
  const items = isPlainObject(body) && Array.isArray(body.documents) ? body.documents : [];
  return excessSections(items.reduce((total: number, item) => total + sectionCount(item), 0));
}

/** The sections of one ingestion item as parsed; any other shape counts none (validation refuses it). */
function sectionCount(item: unknown): number {
  const sections = isPlainObject(item) && isPlainObject(item.document) ? item.document.sections : undefined;
  return Array.isArray(sections) ? sections.length : 0;
}

function excessSections(count: number): string | undefined {
  if (count <= MAX_SECTIONS_PER_REQUEST) return undefined;
  const number = (value: number) => value.toLocaleString("en-US");
  return (
    `This request holds ${number(count)} sections; one request takes at most ${number(MAX_SECTIONS_PER_REQUEST)}, ` +
    "its documents together. Nothing was stored; send fewer sections per request."
  );
}

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
