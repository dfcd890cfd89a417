import { makeArrowTable } from "@lancedb/lancedb";
import type { Table } from "apache-arrow";
import { arrow } from "./arrow";

const { Field, Int8, Int32, List, Schema, TimestampMillisecond, Utf8 } = arrow;

/** A metadata key/value pair a search can filter on (`tags`). */
export interface ChunkTag {
  key: string;
  value: string;
}

/**
 * One chunk as the index stores it, in plain data: everything search ranks, filters, shows and
 * checks access on, so a query never needs PostgreSQL. Document-level fields are repeated on each
 * of the document's chunks.
 */
export interface ChunkRow {
  documentId: string;
  chunkIndex: number;
  /** The searched text (BM25, phrases); also the snippet's source. */
  text: string;
  semanticIdentifier: string;
  title: string | null;
  source: string;
  /** The document's link; `link` is the chunk's own. */
  documentLink: string | null;
  link: string | null;
  imageFileId: string | null;
  docUpdatedAt: Date;
  /** The pairs the document belongs to: the `cc_pair_ids` filter and pair-based access. */
  ccPairIds: number[];
  tags: ChunkTag[];
  /** The document's external_access: null when it has none (its pairs' access type decides). */
  isPublic: boolean | null;
  externalUserEmails: string[];
  externalUserGroupIds: string[];
}

const stringList = () => new List(new Field("item", new Utf8(), true));

/** The table's Arrow schema; column names are the wire's snake_case. */
export const CHUNK_SCHEMA = new Schema([
  // The row's key, "<chunk_index>:<document_id>" (see chunkKey): LanceDB takes a one-column primary key only.
  new Field("chunk_id", new Utf8(), false),
  new Field("document_id", new Utf8(), false),
  new Field("chunk_index", new Int32(), false),
  new Field("text", new Utf8(), false),
  new Field("semantic_identifier", new Utf8(), false),
  new Field("title", new Utf8(), true),
  new Field("source", new Utf8(), false),
  new Field("document_link", new Utf8(), true),
  new Field("link", new Utf8(), true),
  new Field("image_file_id", new Utf8(), true),
  new Field("doc_updated_at", new TimestampMillisecond("UTC"), false),
  new Field("cc_pair_ids", new List(new Field("item", new Int32(), true)), false),
  new Field("tags", stringList(), false),
  // 1 true, 0 false, null absent. Not Bool: Arrow JS writes a batch whose Bool column is all null
  // without a values buffer, and LanceDB refuses that batch ("Need at least ... bytes").
  new Field("is_public", new Int8(), true),
  new Field("external_user_emails", stringList(), false),
  new Field("external_user_group_ids", stringList(), false),
]);

/**
 * A tag as one list element. JSON keeps key and value apart whatever they contain (a separator
 * character could occur in either), and the filter builds the same string to compare.
 */
export function encodeTag(tag: ChunkTag): string {
  return JSON.stringify([tag.key, tag.value]);
}

/**
 * Tags of a document's metadata: a value is a string or a list of strings, and a tag filter matches
 * either shape (decisions: `key` is `value` or a list holding `value`).
 */
export function tagsFromMetadata(metadata: Record<string, string | string[]>): ChunkTag[] {
  return Object.entries(metadata).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => ({ key, value: item })),
  );
}

/** A chunk's key: the index first, so the key is unambiguous whatever the document id holds. */
export function chunkKey(row: Pick<ChunkRow, "documentId" | "chunkIndex">): string {
  return `${row.chunkIndex}:${row.documentId}`;
}

/** chunkKey's inverse: the index is everything before the first colon, the document id the rest. */
export function parseChunkKey(chunkId: string): Pick<ChunkRow, "documentId" | "chunkIndex"> {
  const colon = chunkId.indexOf(":");
  return { documentId: chunkId.slice(colon + 1), chunkIndex: Number(chunkId.slice(0, colon)) };
}

/** The row's column values, by CHUNK_SCHEMA's column names. */
function toStoredChunk(row: ChunkRow): Record<string, unknown> {
  return {
    chunk_id: chunkKey(row),
    document_id: row.documentId,
    chunk_index: row.chunkIndex,
    text: row.text,
    semantic_identifier: row.semanticIdentifier,
    title: row.title,
    source: row.source,
    document_link: row.documentLink,
    link: row.link,
    image_file_id: row.imageFileId,
    doc_updated_at: row.docUpdatedAt,
    cc_pair_ids: row.ccPairIds,
    tags: row.tags.map(encodeTag),
    is_public: row.isPublic === null ? null : Number(row.isPublic),
    external_user_emails: row.externalUserEmails,
    external_user_group_ids: row.externalUserGroupIds,
  };
}

/** Rows as one Arrow table of CHUNK_SCHEMA, for a LanceDB write. */
export function toChunkTable(rows: ChunkRow[]): Table {
  return makeArrowTable(rows.map(toStoredChunk), { schema: CHUNK_SCHEMA });
}
