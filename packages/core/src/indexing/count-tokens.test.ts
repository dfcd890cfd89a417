import fc from "fast-check";
import { countTokens as tokenizerCount } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { countTokens } from "./count-tokens";

const plain = (text: string) => tokenizerCount(text, { disallowedSpecial: new Set() });

// Words, numbers, contractions, punctuation and every kind of whitespace, so that cached pieces recur
// next to each other in every combination the tokenizer's pieces can take.
const fragment = fc.constantFrom(
  "the", " the", "The", "index", " indexing", "don't", "'s", "42", "12345", " 7", ",", ".", "?!", " ...",
  " ", "  ", "\t", "\n", "\n\n", " \n", "\r\n", "文档", "🙂", "é", "<|endoftext|>", "x".repeat(40),
);
const text = fc.oneof(fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join("")), fc.string({ unit: "grapheme", maxLength: 80 }));

describe("countTokens", () => {
  it("counts exactly what the tokenizer counts", () => {
    fc.assert(fc.property(text, (value) => countTokens(value) === plain(value)), { numRuns: 2_000 });
  });

  it("stays exact once its cache has been emptied and filled again", () => {
    // More distinct pieces than the cache holds.
    const words = Array.from({ length: 60_000 }, (_, index) => ` w${index.toString(36)}q`).join("");
    expect(countTokens(words)).toBe(plain(words));
    expect(countTokens(words)).toBe(plain(words));
    expect(countTokens("Hello, world! It's 2026.")).toBe(plain("Hello, world! It's 2026."));
  });
});
