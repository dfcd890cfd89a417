import { describe, expect, it } from "vitest";
import { buildChunks, type IndexableDocument } from "./build-chunks";

const base: IndexableDocument = { semanticIdentifier: "Handbook", title: null, metadata: {}, sections: [] };
const text = (value: string, link: string | null = null) => ({ kind: "text" as const, text: value, link, imageFileId: null });

describe("buildChunks", () => {
  it("indexes a document without sections as one title-only chunk", () => {
    expect(buildChunks(base)).toEqual([expect.objectContaining({ chunkIndex: 0, content: "", titlePrefix: "Handbook" })]);
  });

  it("packs consecutive text sections together and prefers the title over the semantic identifier", () => {
    const chunks = buildChunks({ ...base, title: "Employee handbook", sections: [text("one", "https://a"), text("two")] });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ content: "one\ntwo", titlePrefix: "Employee handbook", link: "https://a" });
  });

  it("gives each image section a chunk of its own that keeps its file id and caption", () => {
    const chunks = buildChunks({
      ...base,
      sections: [text("before"), { kind: "image", text: "a chart", link: null, imageFileId: "file-1" }, text("after")],
    });
    expect(chunks.map((chunk) => [chunk.content, chunk.imageFileId])).toEqual([
      ["before", null],
      ["a chart", "file-1"],
      ["after", null],
    ]);
  });

  it("splits a section larger than a chunk and appends the metadata as a suffix", () => {
    const chunks = buildChunks({ ...base, metadata: { team: "hr", tags: ["a", "b"] }, sections: [text("x".repeat(4500))] });
    expect(chunks.map((chunk) => chunk.content.length)).toEqual([2000, 2000, 500]);
    expect(chunks.every((chunk) => chunk.metadataSuffix === "team: hr\ntags: a, b")).toBe(true);
  });
});
