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

/** Rows per query while a whole listing is streamed: large enough to be cheap, small enough to stay flat. */
export const STREAM_BATCH_SIZE = 1000;

/**
 * A whole listing as batches, one keyset page query at a time after `afterId`: only one batch is in
 * memory, whatever the count. Each query sees the rows committed by then, so a document written
 * during the walk may or may not appear, but none appears twice and the order holds.
 */
export async function* walkDocumentPages(
  fetchPage: (afterId: string | null, limit: number) => Promise<DocMinimalInfoPage>,
  afterId: string | null,
): AsyncGenerator<DocMinimalInfo[]> {
  let cursor = afterId;
  for (;;) {
    const page = await fetchPage(cursor, STREAM_BATCH_SIZE);
    if (page.documents.length > 0) yield page.documents;
    const last = page.documents.at(-1);
    if (page.next_cursor === null || !last) return;
    cursor = last.document_id;
  }
}
