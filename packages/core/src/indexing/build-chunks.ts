import { DEFAULT_CHUNK_TOKEN_LIMIT } from "@svc/schema";
import { countTokens as countTextTokens, decodeTokens, encodeText } from "./count-tokens";

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

/**
 * The searched text of a chunk: its title prefix, content and metadata suffix, each on its own line,
 * as they were weighted together in the tsvector before: a document is found by its title and by a
 * metadata value. The index holds it (write-index-rows) and snippets are cut from it (search).
 */
export function searchedText(chunk: Pick<Chunk, "titlePrefix" | "content" | "metadataSuffix">): string {
  return [chunk.titlePrefix, chunk.content, chunk.metadataSuffix].filter((part) => part !== "").join("\n");
}

/**
 * A chunk's whole size by default, title prefix and metadata suffix included, in cl100k_base tokens.
 * Each index generation has its own limit (`chunkTokenLimit`), which a rebuild may change.
 */
export const MAX_CHUNK_TOKENS = DEFAULT_CHUNK_TOKEN_LIMIT;
// A very long title or metadata block would leave no room for content; the content keeps at least this much.
const MIN_CONTENT_TOKENS = 128;
const SECTION_SEPARATOR = "\n";
// Text is tokenized in segments of at most this many characters: byte-pair merging is quadratic in the
// length of a run without word breaks, so bounding the run keeps a 20 MB document linear.
const MAX_SEGMENT_CHARACTERS = 256;

/** Counts tokens segment by segment: exact for ordinary text, bounded for runs without word breaks. */
function countTokens(text: string, stopAbove = Infinity): number {
  let count = 0;
  for (const segment of segmentText(text)) {
    count += segment.tokens;
    // Past the limit the exact count no longer matters: a large section is tokenized once, in splitSection.
    if (count > stopAbove) break;
  }
  return count;
}

interface Segment {
  text: string;
  /** Where the segment starts in the text segmentText was given. */
  start: number;
  tokens: number;
  endsSentence: boolean;
}

/**
 * Cuts text into consecutive segments whose concatenation is the text. A cut goes where a non-space
 * character meets a space or tab (or a letter or digit meets a line break): the tokenizer never merges
 * across such a point, so the segments' token counts add up to the whole text's. Only a run of more
 * than MAX_SEGMENT_CHARACTERS with no such point is cut blindly.
 */
function* segmentText(text: string): Generator<Segment> {
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    let endsSentence = false;
    if (text.length - start > MAX_SEGMENT_CHARACTERS) {
      const limit = start + MAX_SEGMENT_CHARACTERS;
      let wordEnd = -1;
      let sentenceEnd = -1;
      for (let position = limit; position > start; position -= 1) {
        const previous = text[position - 1] ?? "";
        const current = text[position] ?? "";
        const breaksLine = current === "\n" || current === "\r";
        if (/\s/.test(previous)) continue;
        if (current === " " || current === "\t" || (breaksLine && /[\p{L}\p{N}]/u.test(previous))) {
          if (wordEnd < 0) wordEnd = position;
          if (breaksLine || /[.!?]/.test(previous)) {
            sentenceEnd = position;
            break;
          }
        }
      }
      if (sentenceEnd > start + MAX_SEGMENT_CHARACTERS / 4) {
        end = sentenceEnd;
        endsSentence = true;
      } else if (wordEnd > 0) {
        end = wordEnd;
      } else {
        // No word break: cut anyway, but never between the two halves of a surrogate pair.
        end = isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
      }
    }
    const piece = text.slice(start, end);
    yield { text: piece, start, tokens: countTextTokens(piece), endsSentence: endsSentence || end === text.length };
    start = end;
  }
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Splits one segment longer than the budget on token boundaries, never inside a character. */
function splitSegment(segment: Segment, budget: number): Segment[] {
  const parts: Segment[] = [];
  let rest = segment.text;
  let start = segment.start;
  let tokens = encodeText(rest);
  while (tokens.length > budget) {
    let take = budget;
    let head = decodeTokens(tokens.slice(0, take));
    // A token can end inside a multi-byte character; step back until the prefix decodes cleanly.
    while (take > 1 && !rest.startsWith(head)) head = decodeTokens(tokens.slice(0, --take));
    if (!rest.startsWith(head) || head.length === 0) break;
    parts.push({ text: head, start, tokens: countTextTokens(head), endsSentence: false });
    rest = rest.slice(head.length);
    start += head.length;
    tokens = encodeText(rest);
  }
  parts.push({ text: rest, start, tokens: tokens.length, endsSentence: segment.endsSentence });
  return parts;
}

/**
 * Splits a section larger than a chunk into pieces of at most `budget` tokens, preferring sentence ends.
 * A piece is a slice of `text` (its segments are consecutive), which V8 keeps as a reference into the
 * section's string rather than a copy: a 20 MB section's 15,000 chunks then hold no second copy of it.
 */
function splitSection(text: string, budget: number): { text: string; tokens: number }[] {
  const pieces: { text: string; tokens: number }[] = [];
  let pending: Segment[] = [];
  let pendingTokens = 0;
  const emit = (segments: Segment[]) => {
    const first = segments[0];
    const last = segments.at(-1);
    if (!first || !last) return;
    const piece = text.slice(first.start, last.start + last.text.length);
    // Segment counts add up to the piece's count (segmentText cuts where the tokenizer never merges).
    if (/\S/.test(piece)) pieces.push({ text: piece, tokens: segments.reduce((sum, segment) => sum + segment.tokens, 0) });
  };
  for (const whole of segmentText(text)) {
    for (const segment of whole.tokens > budget ? splitSegment(whole, budget) : [whole]) {
      if (pendingTokens + segment.tokens > budget) {
        // Cut after the last sentence end in the second half of the piece, else after everything pending.
        let cut = pending.length;
        let tokensBeforeCut = pendingTokens;
        for (let index = pending.length, tokens = pendingTokens; index > 0 && tokens > budget / 2; index -= 1) {
          if (pending[index - 1]?.endsSentence) {
            cut = index;
            tokensBeforeCut = tokens;
            break;
          }
          tokens -= pending[index - 1]?.tokens ?? 0;
        }
        emit(pending.slice(0, cut));
        pending = pending.slice(cut);
        pendingTokens -= tokensBeforeCut;
      }
      pending.push(segment);
      pendingTokens += segment.tokens;
    }
  }
  emit(pending);
  return pieces;
}

interface Piece {
  content: string;
  imageFileId: string | null;
  link: string | null;
  tokens: number;
}

/**
 * Splits a document into search chunks of at most `maxTokens` tokens (MAX_CHUNK_TOKENS unless given),
 * title prefix and metadata suffix included: consecutive text sections packed together while they
 * fit, a section larger than a chunk split on its own, each image on its own with its text as the
 * caption, and a text section that names an uploaded image in chunks of its own that keep the file id.
 */
export function buildChunks(document: IndexableDocument, { maxTokens = MAX_CHUNK_TOKENS }: { maxTokens?: number } = {}): Chunk[] {
  const titlePrefix = document.title ?? document.semanticIdentifier;
  const metadataSuffix = Object.entries(document.metadata)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : value}`)
    .join("\n");
  // The prefix and the suffix each sit on their own line around the content, hence the two separators.
  const budget = Math.max(
    MIN_CONTENT_TOKENS,
    maxTokens - countTokens(titlePrefix) - countTokens(metadataSuffix) - 2 * countTokens(SECTION_SEPARATOR),
  );
  const separatorTokens = countTokens(SECTION_SEPARATOR);

  const pieces: Piece[] = [];
  let pending: { texts: string[]; counts: number[]; tokens: number; link: string | null } | null = null;
  const flush = () => {
    if (!pending) return;
    const content = pending.texts.join(SECTION_SEPARATOR);
    const tokens = pending.texts.length > 1 ? countTokens(content) : pending.counts[0] ?? 0;
    // Joining can merge tokens across the separator; in the rare case it costs more, keep the sections apart.
    if (tokens > budget) {
      pending.texts.forEach((text, index) => pieces.push({ content: text, imageFileId: null, link: pending!.link, tokens: pending!.counts[index] ?? 0 }));
    } else {
      pieces.push({ content, imageFileId: null, link: pending.link, tokens });
    }
    pending = null;
  };

  for (const section of document.sections) {
    const text = section.text ?? "";
    if (section.kind === "image") {
      flush();
      // An image stays one chunk; a caption longer than the budget keeps its first `budget` tokens.
      const tokens = countTokens(text, budget);
      const caption = tokens > budget ? (splitSection(text, budget)[0] ?? { text: "", tokens: 0 }) : { text, tokens };
      pieces.push({ content: caption.text, imageFileId: section.imageFileId, link: section.link, tokens: caption.tokens });
      continue;
    }
    if (!text.trim()) continue;
    if (section.imageFileId) {
      // A text section naming an uploaded image (docs/decisions.md: its file id is kept) gets chunks of
      // its own that keep the id, so a hit on its text leads to the image; none of its text is cut.
      flush();
      for (const piece of splitSection(text, budget)) pieces.push({ content: piece.text, imageFileId: section.imageFileId, link: section.link, tokens: piece.tokens });
      continue;
    }
    const tokens = countTokens(text, budget);
    if (tokens > budget) {
      flush();
      for (const piece of splitSection(text, budget)) pieces.push({ content: piece.text, imageFileId: null, link: section.link, tokens: piece.tokens });
      continue;
    }
    if (pending && pending.tokens + separatorTokens + tokens <= budget) {
      pending.texts.push(text);
      pending.counts.push(tokens);
      pending.tokens += separatorTokens + tokens;
    } else {
      flush();
      pending = { texts: [text], counts: [tokens], tokens, link: section.link };
    }
  }
  flush();
  if (pieces.length === 0) pieces.push({ content: "", imageFileId: null, link: null, tokens: 0 });
  return pieces.map(({ tokens, ...piece }, chunkIndex) => ({ chunkIndex, ...piece, titlePrefix, metadataSuffix, tokenCount: tokens }));
}
