import { describe, expect, it } from "vitest";
import { decodeDocumentCursor, encodeDocumentCursor } from "./document-cursor";
import { DocumentPageQuerySchema } from "./ingested-document";
import { validateBody } from "./request-body";

function faults(value: unknown): Array<[Array<string | number>, string]> {
  const result = validateBody(DocumentPageQuerySchema, value, { locPrefix: ["query"] });
  if (result.ok) throw new Error("expected a 422");
  return result.body.detail.map((item) => [item.loc, item.type]);
}

describe("document cursors", () => {
  it("round-trip any id, URL-safe and unpadded", () => {
    for (const id of ["a", "a/b c%2F", "ü 😀 日本", "x".repeat(512), "?&=#+"]) {
      const cursor = encodeDocumentCursor(id);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeDocumentCursor(cursor)).toBe(id);
    }
  });

  it("refuse what was not issued: other alphabets, bad lengths, invalid UTF-8, non-canonical bits", () => {
    for (const cursor of ["a+b/", "abc=", "a", "_w", "YR", "!!"]) expect(decodeDocumentCursor(cursor)).toBeNull();
  });
});

describe("DocumentPageQuerySchema", () => {
  it("defaults to the whole list from the beginning, and reads lax integers and cursors", () => {
    expect(DocumentPageQuerySchema.parse({})).toEqual({ limit: null, cursor: null });
    expect(DocumentPageQuerySchema.parse({ limit: "1000", cursor: encodeDocumentCursor("doc/1") })).toEqual({
      limit: 1000,
      cursor: "doc/1",
    });
    expect(DocumentPageQuerySchema.parse({ cursor: "" })).toEqual({ limit: null, cursor: null });
  });

  it("reports a bad limit or cursor at its query loc", () => {
    expect(faults({ limit: "0" })).toEqual([[["query", "limit"], "greater_than_equal"]]);
    expect(faults({ limit: "1001" })).toEqual([[["query", "limit"], "less_than_equal"]]);
    expect(faults({ limit: "ten", cursor: "%%%" })).toEqual([
      [["query", "limit"], "int_parsing"],
      [["query", "cursor"], "value_error"],
    ]);
  });
});
