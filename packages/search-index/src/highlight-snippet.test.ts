import { describe, expect, it } from "vitest";
import { highlightSnippet, highlightTerms, normalizeWord, SNIPPET_MAX_WORDS } from "./highlight-snippet";
import { resolveTextSearchLanguage } from "./text-search-language";

const { stem } = resolveTextSearchLanguage("english");

describe("highlightSnippet", () => {
  it("escapes the text and marks matched words, stemmed matches included", () => {
    const terms = highlightTerms(["search"], stem);
    expect(highlightSnippet("<b>Searching</b> & searches", terms, stem)).toBe(
      "&lt;b&gt;<mark>Searching</mark>&lt;/b&gt; &amp; <mark>searches</mark>",
    );
  });

  it("cuts long text to the window with the most matches", () => {
    const filler = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
    const snippet = highlightSnippet(`${filler} needle here ${filler}`, highlightTerms(["needle"], stem), stem);
    expect(snippet).toContain("<mark>needle</mark>");
    expect(snippet.startsWith("...")).toBe(true);
    expect(snippet.endsWith("...")).toBe(true);
    expect(snippet.replace(/<\/?mark>/g, "").split(/\s+/).filter((w) => w !== "...").length).toBe(SNIPPET_MAX_WORDS);
  });

  it("does not stem under the simple configuration", () => {
    const simple = resolveTextSearchLanguage("simple");
    expect(highlightSnippet("searching search", highlightTerms(["search"], simple.stem), simple.stem)).toBe(
      "searching <mark>search</mark>",
    );
  });

  it("compares words the same way in each language, after it has seen more words than it remembers", () => {
    const simple = resolveTextSearchLanguage("simple");
    expect(normalizeWord("Searching", stem)).toBe("search");
    expect(normalizeWord("Searching", simple.stem)).toBe("searching");
    for (let i = 0; i < 60_000; i++) normalizeWord(`word${i}`, stem);
    expect(normalizeWord("Searching", stem)).toBe("search");
    expect(normalizeWord("Café", simple.stem)).toBe("cafe");
    expect(highlightSnippet("Searching", highlightTerms(["search"], stem), stem)).toBe("<mark>Searching</mark>");
  });
});
