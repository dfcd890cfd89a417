import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { buildChunks, MAX_CHUNK_TOKENS, type Chunk, type IndexableDocument } from "./build-chunks";

const base: IndexableDocument = { semanticIdentifier: "Handbook", title: null, metadata: {}, sections: [] };
const text = (value: string, link: string | null = null) => ({ kind: "text" as const, text: value, link, imageFileId: null });
const image = (caption: string, imageFileId: string) => ({ kind: "image" as const, text: caption, link: null, imageFileId });
// Special tokens in documents are plain text, so the tests count them the same way.
const tokens = (value: string) => countTokens(value, { disallowedSpecial: new Set() });
const sentence = (index: number) => `Sentence number ${index} explains one small rule of the handbook. `;
const sentences = (count: number) => Array.from({ length: count }, (_, index) => sentence(index)).join("");

/** The whole chunk as it is searched and embedded: title, content and metadata, one per line. */
const wholeChunkTokens = (chunk: Chunk) => tokens([chunk.titlePrefix, chunk.content, chunk.metadataSuffix].join("\n"));

function expectWithinLimit(chunks: Chunk[], { exactCount = true, limit = MAX_CHUNK_TOKENS } = {}) {
  for (const chunk of chunks) {
    // Runs of hundreds of characters without a word break are counted in slices, which may differ by a token.
    if (exactCount) expect(chunk.tokenCount).toBe(tokens(chunk.content));
    else expect(Math.abs(chunk.tokenCount - tokens(chunk.content))).toBeLessThanOrEqual(chunk.content.length / 200 + 1);
    expect(tokens(chunk.titlePrefix) + tokens(chunk.content) + tokens(chunk.metadataSuffix) + 2).toBeLessThanOrEqual(limit);
    expect(wholeChunkTokens(chunk)).toBeLessThanOrEqual(limit);
  }
}

describe("buildChunks", () => {
  it("indexes a document without sections as one title-only chunk", () => {
    expect(buildChunks(base)).toEqual([
      { chunkIndex: 0, content: "", titlePrefix: "Handbook", metadataSuffix: "", imageFileId: null, link: null, tokenCount: 0 },
    ]);
    expect(buildChunks({ ...base, sections: [text(""), text("  \n")] })).toEqual([expect.objectContaining({ content: "" })]);
  });

  it("packs consecutive text sections together and prefers the title over the semantic identifier", () => {
    const chunks = buildChunks({ ...base, title: "Employee handbook", sections: [text("one", "https://a"), text("two")] });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ content: "one\ntwo", titlePrefix: "Employee handbook", link: "https://a" });
    expect(chunks[0]?.tokenCount).toBe(tokens("one\ntwo"));
  });

  it("takes another chunk size (an index generation's)", () => {
    const document = { ...base, title: "Handbook", metadata: { team: "hr" }, sections: [text(sentences(60)), text(sentences(3))] };
    const small = buildChunks(document, { maxTokens: 200 });
    expectWithinLimit(small, { limit: 200 });
    expect(small.length).toBeGreaterThan(buildChunks(document).length);
    // Nothing is lost: the pieces put back together are the text (but for the whitespace at the cuts).
    const letters = (chunks: Chunk[]) => chunks.map((chunk) => chunk.content).join("").replace(/\s+/g, "");
    expect(letters(small)).toBe(letters(buildChunks(document, { maxTokens: 4096 })));
  });

  it("packs sections while they fit and starts a new chunk at the one that does not", () => {
    const section = sentences(12); // three fit in a chunk, four do not
    expect(tokens(section)).toBeGreaterThan(130);
    expect(tokens(section)).toBeLessThan(160);
    const chunks = buildChunks({ ...base, sections: Array.from({ length: 7 }, () => text(section)) });
    expect(chunks.map((chunk) => chunk.content.split("\n").length)).toEqual([3, 3, 1]);
    expect(chunks.every((chunk) => chunk.content.split("\n").every((part) => part === section))).toBe(true);
    expectWithinLimit(chunks);
  });

  it("gives each image section a chunk of its own that keeps its file id and caption", () => {
    const chunks = buildChunks({ ...base, sections: [text("before"), image("a chart", "file-1"), image("", "file-2"), text("after")] });
    expect(chunks.map((chunk) => [chunk.content, chunk.imageFileId])).toEqual([
      ["before", null],
      ["a chart", "file-1"],
      ["", "file-2"],
      ["after", null],
    ]);
  });

  it("keeps the file id of a text section that names an uploaded image, on chunks of its own, all its text kept", () => {
    const captioned = { kind: "text" as const, text: "the quarterly chart", link: "https://x.example/c", imageFileId: "file-9" };
    const chunks = buildChunks({ ...base, sections: [text("before"), captioned, text("after")] });
    expect(chunks.map((chunk) => [chunk.content, chunk.imageFileId, chunk.link])).toEqual([
      ["before", null, null],
      ["the quarterly chart", "file-9", "https://x.example/c"],
      ["after", null, null],
    ]);
    const long = buildChunks({ ...base, sections: [{ ...captioned, text: sentences(120) }] });
    expect(long.length).toBeGreaterThan(1);
    expect(long.every((chunk) => chunk.imageFileId === "file-9")).toBe(true);
    expect(long.map((chunk) => chunk.content).join("")).toBe(sentences(120));
    expectWithinLimit(long);
  });

  it("keeps a long image caption within one chunk", () => {
    const chunks = buildChunks({ ...base, sections: [image(sentences(100), "file-1")] });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.imageFileId).toBe("file-1");
    expect(sentences(100).startsWith(chunks[0]?.content ?? "-")).toBe(true);
    expectWithinLimit(chunks);
  });

  it("splits a section larger than a chunk on its own, at sentence ends, without losing text", () => {
    const long = sentences(120);
    const chunks = buildChunks({ ...base, sections: [text("short before"), text(long, "https://long"), text("short after")] });
    expect(chunks[0]?.content).toBe("short before");
    expect(chunks.at(-1)?.content).toBe("short after");
    const parts = chunks.slice(1, -1);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((chunk) => chunk.content).join("")).toBe(long);
    expect(parts.every((chunk) => chunk.link === "https://long" && chunk.content.trimEnd().endsWith("."))).toBe(true);
    expect(parts.slice(0, -1).every((chunk) => chunk.tokenCount > MAX_CHUNK_TOKENS / 2)).toBe(true);
    expectWithinLimit(chunks);
  });

  it("splits text without spaces or in scripts without word breaks on token boundaries", () => {
    const runs = ["x".repeat(20_000), "文档索引测试".repeat(2_000), "🙂".repeat(3_000), "<|endoftext|>".repeat(500)];
    for (const run of runs) {
      const chunks = buildChunks({ ...base, sections: [text(run)] });
      expect(chunks.map((chunk) => chunk.content).join("")).toBe(run);
      expectWithinLimit(chunks, { exactCount: false });
    }
  });

  it("counts the title prefix and the metadata suffix against the budget of every chunk", () => {
    const title = "A rather long title for the employee handbook ".repeat(8);
    const metadata = { team: "hr", tags: ["a", "b"], summary: sentences(8) };
    const chunks = buildChunks({ ...base, title, metadata, sections: [text(sentences(100))] });
    expect(chunks.every((chunk) => chunk.titlePrefix === title)).toBe(true);
    expect(chunks.every((chunk) => chunk.metadataSuffix === `team: hr\ntags: a, b\nsummary: ${sentences(8)}`)).toBe(true);
    expectWithinLimit(chunks);
    // The prefix and suffix leave less room, so the same text takes more chunks than it does alone.
    expect(chunks.length).toBeGreaterThan(buildChunks({ ...base, sections: [text(sentences(100))] }).length);
  });

  it("keeps a minimum of content per chunk when the title alone is larger than a chunk", () => {
    const chunks = buildChunks({ ...base, title: "word ".repeat(600), sections: [text(sentences(50))] });
    expect(chunks.every((chunk) => chunk.tokenCount > 0 && chunk.tokenCount <= 128)).toBe(true);
    expect(chunks.map((chunk) => chunk.content).join("")).toBe(sentences(50));
  });

  // Its speed is bench/index's business; the test's timeout only catches work growing faster than the text.
  it("chunks a 20 MB document", () => {
    const paragraph = sentences(20);
    const document = { ...base, sections: Array.from({ length: 20_000_000 / paragraph.length / 3 }, () => text(paragraph)) };
    document.sections.push(text(sentences(200_000)));
    const chunks = buildChunks(document);
    expect(chunks.length).toBeGreaterThan(1_000);
    expectWithinLimit(chunks.slice(0, 50));
    expectWithinLimit(chunks.slice(-50));
  }, 60_000);
});
