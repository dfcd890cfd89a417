import { z } from "zod";
import { BasicExpertInfoSchema } from "./basic-expert-info";
import { DocumentSourceSchema } from "./document-source";
import { ExternalAccessSchema } from "./external-access";
import { pydanticErrors } from "./pydantic-errors";
import {
  pyBool,
  pyDateTime,
  pyDict,
  pyEnum,
  pyInt,
  pyList,
  pyModel,
  pyString,
  pydanticIssue,
} from "./pydantic-fields";
import { SectionSchema } from "./section";

/** Longest document id accepted (docs/decisions.md). */
export const MAX_DOCUMENT_ID_LENGTH = 512;

/**
 * A metadata value: `str | list[str]`. Failures are reported as pydantic reports this union, one
 * item per member under the member's name: `[…, key, "str"]` and `[…, key, "list[str]", i]`.
 */
export const MetadataValueSchema = z.preprocess(
  (value: unknown, ctx) => {
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
    ctx.addIssue(pydanticIssue(pydanticErrors.stringType(), value, ["str"]));
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        if (typeof item !== "string") {
          ctx.addIssue(pydanticIssue(pydanticErrors.stringType(), item, ["list[str]", index]));
        }
      });
    } else {
      ctx.addIssue(pydanticIssue(pydanticErrors.listType(), value, ["list[str]"]));
    }
    return z.NEVER;
  },
  z.union([z.string(), z.array(z.string())]),
);
export type MetadataValue = z.infer<typeof MetadataValueSchema>;

export const DocumentBaseSchema = pyModel("DocumentBase", {
  // An empty id counts as omitted: it comes out as undefined and the service infers the id.
  id: pyString({ maxLength: MAX_DOCUMENT_ID_LENGTH })
    .transform((id) => (id === "" ? undefined : id))
    .nullable()
    .optional(),
  sections: pyList(SectionSchema),
  source: pyEnum(DocumentSourceSchema).nullable().optional(),
  semantic_identifier: pyString(),
  metadata: pyDict(MetadataValueSchema),
  doc_updated_at: pyDateTime().nullable().optional(),
  chunk_count: pyInt().nullable().optional(),
  primary_owners: pyList(BasicExpertInfoSchema).nullable().optional(),
  secondary_owners: pyList(BasicExpertInfoSchema).nullable().optional(),
  title: pyString().nullable().optional(),
  from_ingestion_api: pyBool().default(false),
  additional_info: z.unknown().optional(),
  external_access: ExternalAccessSchema.nullable().optional(),
  doc_metadata: pyDict(z.unknown()).nullable().optional(),
});
export type DocumentBase = z.infer<typeof DocumentBaseSchema>;

/** Request body of POST /svc-api/ingestion. */
export const IngestionDocumentSchema = pyModel("IngestionDocument", {
  document: DocumentBaseSchema,
  cc_pair_id: pyInt().nullable().optional(),
});
export type IngestionDocument = z.infer<typeof IngestionDocumentSchema>;

/** Response body of POST /svc-api/ingestion. */
export const IngestionResultSchema = z.object({
  document_id: z.string(),
  already_existed: z.boolean(),
});
export type IngestionResult = z.infer<typeof IngestionResultSchema>;

/** Where one document stands in its own indexing (per document, not per pair). */
export const DocumentIndexingStatusSchema = z.enum(["queued", "indexing", "indexed", "failed"]);
export type DocumentIndexingStatus = z.infer<typeof DocumentIndexingStatusSchema>;
