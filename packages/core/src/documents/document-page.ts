import type { Camel, DocMinimalInfo, DocMinimalInfoPage } from "@svc/schema";
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
export function toDocumentPage(rows: readonly DocumentPageRow[], limit: number): Camel<DocMinimalInfoPage> {
  const documents: Camel<DocMinimalInfo>[] = rows
    .slice(0, limit)
    .map((row) => ({ documentId: row.id, semanticId: row.semantic_identifier, link: row.link }));
  const last = documents.at(-1);
  return { documents, nextCursor: rows.length > limit && last ? encodeDocumentCursor(last.documentId) : null };
}

/** Rows per query while a whole listing is streamed: large enough to be cheap, small enough to stay flat. */
export const STREAM_BATCH_SIZE = 1000;

/**
 * A whole listing as batches, one keyset page query at a time after `afterId`: only one batch is in
 * memory, whatever the count. Each query sees the rows committed by then, so a document written
 * during the walk may or may not appear, but none appears twice and the order holds.
 */
export async function* walkDocumentPages(
  fetchPage: (afterId: string | null, limit: number) => Promise<Camel<DocMinimalInfoPage>>,
  afterId: string | null,
): AsyncGenerator<Camel<DocMinimalInfo>[]> {
  let cursor = afterId;
  for (;;) {
    const page = await fetchPage(cursor, STREAM_BATCH_SIZE);
    if (page.documents.length > 0) yield page.documents;
    const last = page.documents.at(-1);
    if (page.nextCursor === null || !last) return;
    cursor = last.documentId;
  }
}
