import { z } from "zod";
import { BasicExpertInfoSchema } from "./basic-expert-info";
import { DocumentSourceSchema } from "./document-source";
import { ExternalAccessSchema } from "./external-access";
import { findLoneSurrogate } from "./json-value";
import { pydanticErrors } from "./pydantic-errors";
import {
  pyBool,
  pyDateTime,
  pyDict,
  pyEnum,
  pyInt,
  pyJson,
  pyList,
  pyModel,
  pyString,
  pydanticIssue,
} from "./pydantic-fields";
import { SectionSchema } from "./section";
import { checkValidationDeadline } from "./validation-deadline";

/** Longest document id accepted (docs/decisions.md). */
export const MAX_DOCUMENT_ID_LENGTH = 512;

/**
 * Python's `str()` of a JSON number: the shortest round-trip digits, in exponent form (`1e-05`,
 * `1.5e+300`) below 1e-4 and from 1e16 up, as Python writes floats. JSON integers that large have lost
 * their exact digits in JavaScript anyway; and a JSON `1.0` reaches here as 1, so it reads "1" where
 * Python would say "1.0".
 */
function pythonNumberText(value: number): string {
  const [mantissa = "", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 16) return String(value);
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** A metadata value or list item as a string: docs/decisions.md "Ingestion" (metadata). */
function metadataText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return pythonNumberText(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null) return "None";
  // An object or a nested list: its compact JSON text (bodies are depth-limited, so this is bounded).
  return JSON.stringify(value);
}

/**
 * A metadata value: `str | list[str]`, as the original's newest release reads it: numbers, booleans
 * and null (alone or as list items) become Python's `str()` of them, objects and nested lists their
 * compact JSON text. Only a lone surrogate anywhere in it is refused (`string_unicode` at its path).
 */
export const MetadataValueSchema = z.preprocess(
  (value: unknown, ctx) => {
    checkValidationDeadline();
    const found = findLoneSurrogate(value);
    if (found) {
      ctx.addIssue(pydanticIssue(pydanticErrors.stringUnicode(), found.text, found.inKey ? [...found.path, "[key]"] : found.path));
      return z.NEVER;
    }
    return Array.isArray(value) ? value.map(metadataText) : metadataText(value);
  },
  z.union([z.string(), z.array(z.string())]),
);
export type MetadataValue = z.infer<typeof MetadataValueSchema>;

/** Ids that a URL path cannot carry: `/ingestion/.` and `/ingestion/..` are resolved away by clients. */
const UNADDRESSABLE_IDS = new Set([".", ".."]);

export const DocumentBaseSchema = pyModel("DocumentBase", {
  // An empty id counts as omitted: it comes out as undefined and the service infers the id.
  id: pyString({ maxLength: MAX_DOCUMENT_ID_LENGTH })
    .transform((id, ctx) => {
      if (UNADDRESSABLE_IDS.has(id)) {
        ctx.addIssue(pydanticIssue(pydanticErrors.valueError(`the document id '${id}' cannot be addressed in a URL path`), id));
        return z.NEVER;
      }
      return id === "" ? undefined : id;
    })
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
  additional_info: pyJson().optional(),
  external_access: ExternalAccessSchema.nullable().optional(),
  doc_metadata: pyDict(pyJson()).nullable().optional(),
});
export type DocumentBase = z.infer<typeof DocumentBaseSchema>;

/** Request body of POST /svc-api/ingestion. */
export const IngestionDocumentSchema = pyModel("IngestionDocument", {
  document: DocumentBaseSchema,
  cc_pair_id: pyInt().nullable().optional(),
  // Write conditions (docs/decisions.md "Conditional writes"); without either, the write is the original's upsert.
  if_version: pyInt({ ge: 0 })
    .nullable()
    .optional()
    .meta({
      description:
        "Apply the write only if the stored document's `current_version` is this one (0: only if the document does not exist yet); otherwise 409 with the current version.",
    }),
  if_newer: pyBool()
    .nullable()
    .optional()
    .meta({
      description:
        "Ignore the write (200, `applied: false`) when the stored `doc_updated_at` is newer than this document's `doc_updated_at` (now when omitted).",
    }),
});
export type IngestionDocument = z.infer<typeof IngestionDocumentSchema>;

/** Response body of POST /svc-api/ingestion. */
export const IngestionResultSchema = z.object({
  document_id: z.string(),
  already_existed: z.boolean(),
  applied: z
    .boolean()
    .optional()
    .meta({ description: "Only when the request carried `if_version` or `if_newer`: whether the write was stored." }),
});
export type IngestionResult = z.infer<typeof IngestionResultSchema>;

/**
 * An ingestion's 409: a write whose `if_version` no longer holds carries the version stored now
 * (`current_version`, null when there is no such document); an image file deleted mid-write has none.
 */
export const IngestionConflictSchema = z.object({
  detail: z.string(),
  current_version: z.int().nullable().optional(),
});
export type IngestionConflict = z.infer<typeof IngestionConflictSchema>;

/** Where one document stands in its own indexing (per document, not per pair). */
export const DocumentIndexingStatusSchema = z.enum(["queued", "indexing", "indexed", "failed"]);
export type DocumentIndexingStatus = z.infer<typeof DocumentIndexingStatusSchema>;
