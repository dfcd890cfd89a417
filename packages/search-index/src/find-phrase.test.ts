import { describe, expect, it } from "vitest";
import { findPhrases, memoNormalize, phraseWords } from "./find-phrase";
import { resolveTextSearchLanguage } from "./text-search-language";

const { stem } = resolveTextSearchLanguage("english");
const normalize = memoNormalize(stem);
const phrases = (...list: string[]) => phraseWords(list, stem) ?? [];

describe("findPhrases", () => {
  it("finds words in a row, case and stemming as the index compares them, across punctuation", () => {
    expect(findPhrases("The Quick-brown fox", phrases("quick brown"), normalize)).toBe(true);
    expect(findPhrases("he was searching documents", phrases("searched document"), normalize)).toBe(true);
    expect(findPhrases("brown quick", phrases("quick brown"), normalize)).toBe(false);
    expect(findPhrases("quick and brown", phrases("quick brown"), normalize)).toBe(false);
  });

  it("needs every phrase", () => {
    expect(findPhrases("disk full, then nfs down", phrases("disk full", "nfs down"), normalize)).toBe(true);
    expect(findPhrases("disk full, then nfs is down", phrases("disk full", "nfs down"), normalize)).toBe(false);
  });

  it("does not decide text outside ASCII or with a token the index drops", () => {
    expect(findPhrases("café crème brûlée", phrases("creme brulee"), normalize)).toBeNull();
    expect(findPhrases(`quick ${"x".repeat(41)} brown`, phrases("quick brown"), normalize)).toBeNull();
    expect(phraseWords(["crème brûlée"], stem)).toBeNull();
  });
});
