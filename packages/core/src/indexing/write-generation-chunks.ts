import { Prisma, executeSql, selectSql, type AnyTx } from "@svc/db";
import { buildChunks, type Chunk, type IndexableDocument } from "./build-chunks";
import { collectGarbage } from "./collect-garbage";
import type { ChunkGeneration } from "../search-index/index-generations";

// The one writer of `document_chunk`: indexing and a rebuild replace documents' chunks in the
// generations they write; purge-index-generation.ts empties a retired or canceled generation.

export interface DocumentChunks {
  documentId: string;
  chunks: Chunk[];
}

/**
 * Most chunks, and most characters of chunk text, that one INSERT carries: bounds the JSON built for it
 * and pg's buffer for the statement (~3x the text at once; 4 M characters added ~28 MB to a worker
 * indexing a 20 MiB document, bench/RESULTS.md, issue 44).
 */
const SLICE_CHUNKS = 1_000;
const SLICE_CHARS = 1_000_000;

/**
 * Replaces the chunks of these documents in one generation in PostgreSQL (the system of record the
 * search index is refilled from; write-index-rows.ts writes the index): the old chunks go in one
 * statement, the new ones in one INSERT per slice of at most SLICE_CHUNKS chunks or SLICE_CHARS
 * characters (so a 20 MB document is never serialized whole). The caller holds the document rows.
 */
export async function writeGenerationChunks(tx: AnyTx, generation: ChunkGeneration, documents: DocumentChunks[]): Promise<void> {
  if (documents.length === 0) return;
  const documentIds = documents.map((document) => document.documentId);
  await executeSql(
    tx,
    Prisma.sql`DELETE FROM document_chunk WHERE document_id = ANY(${documentIds}::text[]) AND generation_id = ${generation.id}`,
  );
  let slice: ChunkRow[] = [];
  let sliceChars = 0;
  let sliced = false;
  for (const { documentId, chunks } of documents) {
    for (const chunk of chunks) {
      slice.push({
        document_id: documentId,
        chunk_index: chunk.chunkIndex,
        content: chunk.content,
        title_prefix: chunk.titlePrefix,
        metadata_suffix: chunk.metadataSuffix,
        image_file_id: chunk.imageFileId,
        link: chunk.link,
        token_count: chunk.tokenCount,
      });
      sliceChars += chunk.content.length + chunk.titlePrefix.length + chunk.metadataSuffix.length;
      if (slice.length >= SLICE_CHUNKS || sliceChars >= SLICE_CHARS) {
        await insertChunks(tx, generation, slice);
        slice = [];
        sliceChars = 0;
        sliced = true;
        collectGarbage();
      }
    }
  }
  if (slice.length > 0) await insertChunks(tx, generation, slice);
  if (sliced) collectGarbage();
}

interface ChunkRow {
  document_id: string;
  chunk_index: number;
  content: string;
  title_prefix: string;
  metadata_suffix: string;
  image_file_id: string | null;
  link: string | null;
  token_count: number;
}

async function insertChunks(tx: AnyTx, generation: ChunkGeneration, rows: ChunkRow[]): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      INSERT INTO document_chunk (document_id, generation_id, chunk_index, content, title_prefix, metadata_suffix,
        image_file_id, link, token_count)
      SELECT c.document_id, ${generation.id}::int, c.chunk_index, c.content, c.title_prefix, c.metadata_suffix, c.image_file_id,
        c.link, c.token_count
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS c(document_id text, chunk_index int, content text,
          title_prefix text, metadata_suffix text, image_file_id text, link text, token_count int)`,
  );
}

/**
 * A document's chunks for each generation, chunked once per distinct chunk size (the expensive part:
 * tokenizing), in the generations' order.
 */
export function buildGenerationChunks(
  document: IndexableDocument,
  generations: ChunkGeneration[],
): { generation: ChunkGeneration; chunks: Chunk[] }[] {
  const bySize = new Map<number, Chunk[]>();
  return generations.map((generation) => {
    let chunks = bySize.get(generation.chunkTokenLimit);
    if (!chunks) {
      chunks = buildChunks(document, { maxTokens: generation.chunkTokenLimit });
      bySize.set(generation.chunkTokenLimit, chunks);
    }
    return { generation, chunks };
  });
}

/**
 * Deletes the chunks of the next `batchSize` documents (in id order, after `afterDocumentId`) of a
 * generation nothing writes any more; `lastDocumentId` is null once none is left.
 */
export async function deleteGenerationChunkBatch(
  tx: AnyTx,
  generationId: number,
  afterDocumentId: string,
  batchSize: number,
): Promise<{ deleted: number; lastDocumentId: string | null }> {
  const [batch] = await selectSql<{ deleted: number; last_document_id: string | null }>(
    tx,
    Prisma.sql`
      WITH documents AS (
        SELECT DISTINCT document_id FROM (
          SELECT c.document_id FROM document_chunk c
          WHERE c.document_id > ${afterDocumentId} AND c.generation_id = ${generationId}
          ORDER BY c.document_id LIMIT ${batchSize}
        ) first_chunks
      ), deleted AS (
        DELETE FROM document_chunk c
        WHERE c.document_id = ANY (ARRAY(SELECT document_id FROM documents)) AND c.generation_id = ${generationId}
        RETURNING c.document_id
      )
      SELECT count(*)::int AS deleted, max(document_id) AS last_document_id FROM deleted`,
  );
  return { deleted: batch?.deleted ?? 0, lastDocumentId: batch?.last_document_id ?? null };
}
