import type { Camel, DocumentWithChunks } from "@svc/schema";
import { getDocument, type DocumentLookup } from "./get-document";

/**
 * A document as GET /svc-api/ingestion/{id} shows it, plus the chunks the search index holds for its
 * indexed version in the current generation, the one search serves (during a rebuild the building
 * generation holds a second copy). None until it is first indexed. Same visibility rule as getDocument.
 */
export async function getDocumentWithChunks(lookup: DocumentLookup): Promise<Camel<DocumentWithChunks>> {
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
      chunkIndex: chunk.chunkIndex,
      content: chunk.content,
      tokenCount: chunk.tokenCount,
      imageFileId: chunk.imageFileId,
      link: chunk.link,
    })),
  };
}
