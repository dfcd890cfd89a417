import type { DocMinimalInfo, DocMinimalInfoPage } from "@svc/schema";
import { encodeDocumentCursor } from "@svc/schema";

/** A listing row as the page queries select it. */
export interface DocumentPageRow {
  id: string;
  semantic_identifier: string;
  link: string | null;
}

/**
 * Turns the rows of a page query, which asks for `limit + 1` rows, into a page: the extra row only
 * says that another page follows, so the last page never points at an empty one.
 */
export function toDocumentPage(rows: readonly DocumentPageRow[], limit: number): DocMinimalInfoPage {
  const documents: DocMinimalInfo[] = rows
    .slice(0, limit)
    .map((row) => ({ document_id: row.id, semantic_id: row.semantic_identifier, link: row.link }));
  const last = documents.at(-1);
  return { documents, next_cursor: rows.length > limit && last ? encodeDocumentCursor(last.document_id) : null };
}
