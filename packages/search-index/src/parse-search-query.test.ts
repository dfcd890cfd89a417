import { describe, expect, it } from "vitest";
import { parseSearchQuery } from "./parse-search-query";

describe("parseSearchQuery", () => {
  it("splits words, phrases and exclusions as websearch_to_tsquery did", () => {
    expect(parseSearchQuery('alpha "quick  brown fox" -beta -"lazy dog" gamma')).toEqual({
      words: ["alpha", "gamma"],
      phrases: ["quick brown fox"],
      excludedWords: ["beta"],
      excludedPhrases: ["lazy dog"],
    });
  });

  it("treats a quoted single word as a word, an unclosed quote as a phrase to the end, and a lone dash as nothing", () => {
    expect(parseSearchQuery('"alpha" - "beta gamma')).toEqual({
      words: ["alpha"],
      phrases: ["beta gamma"],
      excludedWords: [],
      excludedPhrases: [],
    });
  });

  it("keeps inner dashes of a word", () => {
    expect(parseSearchQuery("e-mail").words).toEqual(["e-mail"]);
  });
});
