import type { DbOrTx } from "@svc/db";
import type { DocumentWithChunks } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { getDocument } from "./get-document";

/**
 * A document as GET /svc-api/ingestion/{id} shows it, plus the chunks the search index holds for its
 * indexed version in the current generation, the one search serves (during a rebuild the building
 * generation holds a second copy). None until it is first indexed. Same visibility rule as getDocument.
 */
export async function getDocumentWithChunks({
  db,
  principal,
  documentId,
}: {
  db: DbOrTx;
  principal: Principal;
  documentId: string;
}): Promise<DocumentWithChunks> {
  const document = await getDocument({ db, principal, documentId });
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
