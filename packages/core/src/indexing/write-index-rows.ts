import { Prisma, selectSql, type AnyTx } from "@svc/db";
import { appendDocuments, replaceDocuments, tagsFromMetadata, type ChunkRow } from "@svc/search-index";
import type { ChunkGeneration } from "../search-index/index-generations";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { searchedText } from "./build-chunks";
import { collectGarbage } from "./collect-garbage";
import type { DocumentChunks } from "./write-generation-chunks";

/** What every row of a document repeats: what search shows, filters on and checks access on. */
interface DocumentFields {
  id: string;
  semantic_identifier: string;
  title: string | null;
  source: string;
  link: string | null;
  doc_updated_at: Date;
  metadata: Record<string, string | string[]>;
  is_public: boolean | null;
  external_user_emails: string[];
  external_user_group_ids: string[];
  cc_pair_ids: number[];
}

/**
 * Writes these documents' chunks into the generation's table of the search index, replacing all
 * their earlier rows in one commit (a document with no chunks loses its rows); the documents in
 * `absent`, which the caller knows the table holds no rows of (index-documents.ts), are appended
 * in a commit of their own instead, which costs the same however many rows await a merge. The
 * documents' fields and pair links are read here, under the caller's transaction, which holds the
 * document rows: the rows carry what PostgreSQL is about to commit. Called by indexing and by the
 * rebuild pass just before their transaction commits (ARCHITECTURE.md, "Write order").
 */
export async function writeIndexRows(
  tx: AnyTx,
  index: SearchIndexTables,
  generation: ChunkGeneration,
  documents: DocumentChunks[],
  absent: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (documents.length === 0) return;
  const documentIds = documents.map((document) => document.documentId);
  const fields = await selectSql<DocumentFields>(
    tx,
    Prisma.sql`
      SELECT d.id, d.semantic_identifier, d.title, d.source::text AS source, d.link, d.doc_updated_at, d.metadata,
        d.is_public, d.external_user_emails, d.external_user_group_ids,
        ARRAY(SELECT l.cc_pair_id FROM document_by_cc_pair l WHERE l.document_id = d.id ORDER BY l.cc_pair_id) AS cc_pair_ids
      FROM document d WHERE d.id = ANY(${documentIds}::text[])`,
  );
  const byId = new Map(fields.map((row) => [row.id, row]));
  try {
    const table = await index.writable(generation);
    // Not merged here: an optimize compacts and re-merges the table (0.7-3.7 s a batch at 20,000 rows,
    // measured), so the worker merges on a schedule instead (optimizeSearchIndex).
    const appended = documents.filter((document) => absent.has(document.documentId));
    const replaced = documents.filter((document) => !absent.has(document.documentId));
    if (appended.length > 0) await appendDocuments({ generation: table, chunks: chunkRows(appended, byId), afterSlice: collectGarbage });
    if (replaced.length > 0) {
      const documentIds = replaced.map((document) => document.documentId);
      await replaceDocuments({ generation: table, documentIds, chunks: chunkRows(replaced, byId), afterSlice: collectGarbage });
    }
  } catch (error) {
    index.forget(generation.id);
    throw error;
  }
}

/**
 * The rows of the documents' chunks, built as replaceDocuments reads them: it writes a large document
 * slice by slice, and only the slice's rows (and their searched texts) are held at once.
 */
function* chunkRows(documents: DocumentChunks[], byId: Map<string, DocumentFields>): Generator<ChunkRow> {
  for (const { documentId, chunks } of documents) {
    const document = byId.get(documentId);
    // A document deleted under the caller's feet has no fields: it keeps no rows.
    if (document === undefined) continue;
    const shared = {
      documentId,
      semanticIdentifier: document.semantic_identifier,
      title: document.title,
      source: document.source,
      documentLink: document.link,
      docUpdatedAt: document.doc_updated_at,
      ccPairIds: document.cc_pair_ids,
      tags: tagsFromMetadata(document.metadata),
      isPublic: document.is_public,
      externalUserEmails: document.external_user_emails,
      externalUserGroupIds: document.external_user_group_ids,
    };
    for (const chunk of chunks) {
      yield { ...shared, chunkIndex: chunk.chunkIndex, text: searchedText(chunk), link: chunk.link, imageFileId: chunk.imageFileId };
    }
  }
}
