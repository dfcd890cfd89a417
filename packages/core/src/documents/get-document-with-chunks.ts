import type { DocumentWithChunks } from "@svc/schema";
import { getDocument, type DocumentLookup } from "./get-document";

/**
 * A document as GET /svc-api/ingestion/{id} shows it, plus the chunks the search index holds for its
 * indexed version in the current generation, the one search serves (during a rebuild the building
 * generation holds a second copy). None until it is first indexed. Same visibility rule as getDocument.
 */
export async function getDocumentWithChunks(lookup: DocumentLookup): Promise<DocumentWithChunks> {
  const { db, documentId } = lookup;
  const document = await getDocument(lookup);
  const chunks = await db.documentChunk.findMany({
    where: { documentId, generation: { status: "current" } },
    orderBy: { chunkIndex: "asc" },
    select: { chunkIndex: true, content: true, tokenCount: true, imageFileId: true, link: true },
  });
  return {
    ...document,
    chunks: chunks.map((chunk) => ({
      chunk_index: chunk.chunkIndex,
      content: chunk.content,
      token_count: chunk.tokenCount,
      image_file_id: chunk.imageFileId,
      link: chunk.link,
    })),
  };
}
