/** What indexing needs of a stored document. */
export interface IndexableDocument {
  semanticIdentifier: string;
  title: string | null;
  metadata: Record<string, string | string[]>;
  sections: { kind: "text" | "image"; text: string | null; link: string | null; imageFileId: string | null }[];
}

export interface Chunk {
  chunkIndex: number;
  content: string;
  titlePrefix: string;
  metadataSuffix: string;
  imageFileId: string | null;
  link: string | null;
  tokenCount: number;
}

// A first, character-based budget; the tokenizer-based chunker replaces it with the indexing issue.
const MAX_CHUNK_CHARACTERS = 2_000;

/** Splits a document into search chunks: text sections packed together, each image on its own. */
export function buildChunks(document: IndexableDocument): Chunk[] {
  const titlePrefix = document.title ?? document.semanticIdentifier;
  const metadataSuffix = Object.entries(document.metadata)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : value}`)
    .join("\n");
  const pieces: { content: string; imageFileId: string | null; link: string | null }[] = [];
  let pending: { content: string; link: string | null } | null = null;
  const flush = () => {
    if (pending) pieces.push({ ...pending, imageFileId: null });
    pending = null;
  };
  for (const section of document.sections) {
    if (section.kind === "image") {
      flush();
      pieces.push({ content: section.text ?? "", imageFileId: section.imageFileId, link: section.link });
      continue;
    }
    for (let start = 0; start < Math.max(1, (section.text ?? "").length); start += MAX_CHUNK_CHARACTERS) {
      const part = (section.text ?? "").slice(start, start + MAX_CHUNK_CHARACTERS);
      if (pending && pending.content.length + part.length + 1 <= MAX_CHUNK_CHARACTERS) {
        pending.content += `\n${part}`;
      } else {
        flush();
        pending = { content: part, link: section.link };
      }
    }
  }
  flush();
  if (pieces.length === 0) pieces.push({ content: "", imageFileId: null, link: null });
  return pieces.map((piece, chunkIndex) => ({
    chunkIndex,
    ...piece,
    titlePrefix,
    metadataSuffix,
    tokenCount: piece.content.split(/\s+/).filter(Boolean).length,
  }));
}
