import { z } from "zod";
import { decodeDocumentCursor } from "./document-cursor";
import { DocumentSourceSchema } from "./document-source";
import { DocumentIndexingStatusSchema } from "./ingestion";
import { pydanticErrors } from "./pydantic-errors";
import { pyInt, pyModel, pyString, pydanticIssue } from "./pydantic-fields";

/**
 * Path parameters of `/svc-api/ingestion/{document_id}`: the id, URL-decoded, verbatim. A `%00` is
 * refused: stored ids never hold NUL (ingestion removes it), and PostgreSQL cannot take it as a
 * parameter.
 */
export const DocumentIdPathSchema = pyModel("DocumentIdPath", {
  document_id: pyString().transform((id, ctx) => {
    if (!id.includes("\u0000")) return id;
    ctx.addIssue(pydanticIssue(pydanticErrors.valueError("a document id never contains a NUL character"), id));
    return z.NEVER;
  }),
});
export type DocumentIdPath = z.infer<typeof DocumentIdPathSchema>;

/** Path parameters of `/svc-api/connector-docs/{cc_pair_id}`. */
export const CcPairIdPathSchema = pyModel("CcPairIdPath", {
  cc_pair_id: pyInt(),
});
export type CcPairIdPath = z.infer<typeof CcPairIdPathSchema>;

/** The console's page size when it names none. */
export const DEFAULT_DOCUMENT_PAGE_SIZE = 100;
export const MAX_DOCUMENT_PAGE_SIZE = 1000;

/** A `next_cursor` handed out by a listing; parses to the document id it stands for. */
export const DocumentCursorSchema = z.preprocess(
  (value: unknown, ctx) => {
    if (typeof value !== "string") {
      ctx.addIssue(pydanticIssue(pydanticErrors.stringType(), value));
      return z.NEVER;
    }
    const lastId = decodeDocumentCursor(value);
    if (lastId === null) {
      ctx.addIssue(pydanticIssue(pydanticErrors.valueError("cursor is not a next_cursor of this listing"), value));
      return z.NEVER;
    }
    return lastId;
  },
  z.string(),
);

/**
 * Query of the document listings. Without `limit` the whole list is answered (streamed); with it, one
 * page. `cursor` comes out as the id after which the list starts; an empty cursor, like none, starts
 * at the beginning (docs/decisions.md "Per-document routes and document lists").
 */
export const DocumentPageQuerySchema = pyModel("DocumentPageQuery", {
  limit: pyInt({ ge: 1, le: MAX_DOCUMENT_PAGE_SIZE }).nullable().default(null),
  cursor: DocumentCursorSchema.transform((lastId) => (lastId === "" ? null : lastId))
    .nullable()
    .default(null),
});
export type DocumentPageQuery = z.infer<typeof DocumentPageQuerySchema>;

/** A listed document (the original's `DocMinimalInfo`). */
export const DocMinimalInfoSchema = z.object({
  document_id: z.string(),
  semantic_id: z.string(),
  link: z.string().nullable(),
});
export type DocMinimalInfo = z.infer<typeof DocMinimalInfoSchema>;

/** A REST document listing: a bare array ordered by id (the original's `list[DocMinimalInfo]`). */
export const DocMinimalInfoListSchema = z.array(DocMinimalInfoSchema);
export type DocMinimalInfoList = z.infer<typeof DocMinimalInfoListSchema>;

/** One page of a document listing (the console's), ordered by id; `next_cursor` is null on the last page. */
export const DocMinimalInfoPageSchema = z.object({
  documents: z.array(DocMinimalInfoSchema),
  next_cursor: z.string().nullable(),
});
export type DocMinimalInfoPage = z.infer<typeof DocMinimalInfoPageSchema>;

/** A section as stored: a text section has `text`; an image section has `image_file_id`. */
export const StoredSectionSchema = z.object({
  text: z.string().nullable(),
  link: z.string().nullable(),
  image_file_id: z.string().nullable(),
});
export type StoredSection = z.infer<typeof StoredSectionSchema>;

/** An owner as stored (BasicExpertInfo); the parts the client left out are absent. */
export const StoredOwnerSchema = z.object({
  display_name: z.string().nullable().optional(),
  first_name: z.string().nullable().optional(),
  middle_initial: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
});
export type StoredOwner = z.infer<typeof StoredOwnerSchema>;

/** external_access as stored. */
export const StoredExternalAccessSchema = z.object({
  external_user_emails: z.array(z.string()),
  external_user_group_ids: z.array(z.string()),
  is_public: z.boolean(),
});
export type StoredExternalAccess = z.infer<typeof StoredExternalAccessSchema>;

/**
 * GET /svc-api/ingestion/{document_id}: the DocumentBase fields as stored (as the client sent them,
 * `doc_updated_at` in UTC) and where the document stands in its indexing.
 */
export const DocumentDetailSchema = z.object({
  id: z.string(),
  semantic_identifier: z.string(),
  title: z.string().nullable(),
  source: DocumentSourceSchema,
  metadata: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  doc_updated_at: z.iso.datetime({ offset: true }),
  sections: z.array(StoredSectionSchema),
  primary_owners: z.array(StoredOwnerSchema).nullable(),
  secondary_owners: z.array(StoredOwnerSchema).nullable(),
  external_access: StoredExternalAccessSchema.nullable(),
  additional_info: z.unknown(),
  doc_metadata: z.record(z.string(), z.unknown()).nullable(),
  from_ingestion_api: z.boolean(),
  indexing_status: DocumentIndexingStatusSchema,
  /** Grows by one on every upsert. */
  current_version: z.int(),
  /** The version the search index holds; null until first indexed. */
  indexed_version: z.int().nullable(),
  chunk_count: z.int().nullable(),
  indexed_at: z.iso.datetime({ offset: true }).nullable(),
  last_error: z.string().nullable(),
  /** Indexing tries for the current version. */
  attempts: z.int(),
  cc_pair_ids: z.array(z.int()),
});
export type DocumentDetail = z.infer<typeof DocumentDetailSchema>;

/** Answer to DELETE /svc-api/ingestion/{document_id}: `null`, as the original answers. */
export const DeletedDocumentSchema = z.null();
export type DeletedDocument = z.infer<typeof DeletedDocumentSchema>;
