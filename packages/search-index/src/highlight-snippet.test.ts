import { describe, expect, it } from "vitest";
import { highlightSnippet, highlightTerms, normalizeWord, SNIPPET_MAX_WORDS, withinEdits } from "./highlight-snippet";
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

  it("cuts the window holding the most distinct matched words, not the most repeats of one", () => {
    const filler = (seed: string) => Array.from({ length: 50 }, (_, i) => `${seed}${i}`).join(" ");
    const text = `wombat wombat wombat wombat ${filler("a")} wombat burrow ${filler("b")}`;
    const snippet = highlightSnippet(text, highlightTerms(["wombat", "burrow"], stem), stem);
    expect(snippet).toContain("<mark>wombat</mark> <mark>burrow</mark>");
    expect(snippet.startsWith("... ")).toBe(true);
  });

  it("shows the content alone when it holds a match, the whole text when only the title or metadata does", () => {
    const text = "Wombat notes\nThe burrow is deep.\nteam: wombat";
    const content = { start: "Wombat notes\n".length, end: "Wombat notes\nThe burrow is deep.".length };
    expect(highlightSnippet(text, highlightTerms(["burrow", "wombat"], stem), stem, { content })).toBe("The <mark>burrow</mark> is deep.");
    expect(highlightSnippet(text, highlightTerms(["wombat"], stem), stem, { content })).toBe(
      "<mark>Wombat</mark> notes\nThe burrow is deep.\nteam: <mark>wombat</mark>",
    );
  });

  it("marks a misspelled query word's near matches, stemmed or as typed", () => {
    expect(withinEdits("platpus", "platypus", 1)).toBe(true);
    expect(withinEdits("vneom", "venom", 1)).toBe(true);
    expect(withinEdits("platpus", "platypus", 0)).toBe(false);
    expect(withinEdits("abc", "xyz", 2)).toBe(false);
    const near = [{ typed: "platpus", stemmed: normalizeWord("platpus", stem), distance: 1 }];
    expect(highlightSnippet("The platypus swims; platforms do not.", new Set(), stem, { near })).toBe(
      "The <mark>platypus</mark> swims; platforms do not.",
    );
  });
});
