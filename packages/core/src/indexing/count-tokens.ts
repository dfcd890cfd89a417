import { createRequire } from "node:module";
import type * as Cl100kBase from "gpt-tokenizer/encoding/cl100k_base";
import { CL100K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

type Tokenizer = typeof Cl100kBase;
let loadedTokenizer: Tokenizer | undefined;

/**
 * The cl100k_base tokenizer, loaded on first use: loading builds its tables (about a second), which
 * every process importing core paid at start, though only indexing uses it (the CLI's commands and
 * the web server's reads never do). require() keeps the callers synchronous.
 */
function tokenizer(): Tokenizer {
  if (!loadedTokenizer) {
    loadedTokenizer = createRequire(import.meta.url)("gpt-tokenizer/encoding/cl100k_base") as Tokenizer;
    // The piece cache below does the tokenizer's job; its own (100,000 token arrays) would only hold memory.
    loadedTokenizer.setMergeCacheSize(1_000);
  }
  return loadedTokenizer;
}

// Document text is data: "<|endoftext|>" in it is counted as plain characters, not rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** cl100k_base token ids of text (for cutting on token boundaries; counting needs only countTokens). */
export const encodeText = (text: string): number[] => tokenizer().encode(text, PLAIN_TEXT);
export const decodeTokens = (tokens: Iterable<number>): string => tokenizer().decode(tokens);

// The tokenizer cuts text into pieces with this expression and byte-pair encodes each piece on its own,
// so a text's count is the sum of its pieces' counts. Pieces repeat (words), so their counts are cached:
// a Map lookup instead of the tokenizer's several per piece, about four times faster on prose. Text of
// unique words (hashes, random ids) misses every time and counts ~25 % slower than the tokenizer's own
// count, which is slow there too (~1 MB/s: byte-pair merging dominates).
const PIECE = new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, "gu");
const MAX_CACHED_PIECE_CHARACTERS = 32;
const MAX_CACHED_PIECES = 50_000;
const pieceCounts = new Map<string, number>();

/** The text's cl100k_base token count, exactly what the tokenizer's own count gives. */
export function countTokens(text: string): number {
  let count = 0;
  PIECE.lastIndex = 0;
  for (let match = PIECE.exec(text); match !== null; match = PIECE.exec(text)) {
    const piece = match[0];
    let pieceCount = pieceCounts.get(piece);
    if (pieceCount === undefined) {
      pieceCount = tokenizer().countTokens(piece, PLAIN_TEXT);
      if (piece.length <= MAX_CACHED_PIECE_CHARACTERS) {
        // Bounded: a new vocabulary fills it again in a few documents.
        if (pieceCounts.size >= MAX_CACHED_PIECES) pieceCounts.clear();
        pieceCounts.set(piece, pieceCount);
      }
    }
    count += pieceCount;
  }
  return count;
}
