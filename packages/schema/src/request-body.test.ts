import { describe, expect, it } from "vitest";
import { z } from "zod";
import { IngestionDocumentSchema } from "./ingestion";
import { locateJsonSyntaxError } from "./json-syntax";
import { parseJsonBody, stripNulCharacters, validateBody } from "./request-body";

describe("parseJsonBody", () => {
  it("parses JSON", () => {
    expect(parseJsonBody('{"a": [1, "b", null]}')).toEqual({ ok: true, value: { a: [1, "b", null] } });
    expect(parseJsonBody("null")).toEqual({ ok: true, value: null });
  });

  it("answers an empty body with missing at body", () => {
    expect(parseJsonBody("")).toEqual({
      ok: false,
      body: { detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] },
    });
  });

  it("answers malformed JSON with json_invalid at the character offset", () => {
    expect(parseJsonBody('{"document": }')).toEqual({
      ok: false,
      body: {
        detail: [
          {
            type: "json_invalid",
            loc: ["body", 13],
            msg: "JSON decode error",
            input: {},
            ctx: { error: "Expecting value" },
          },
        ],
      },
    });
  });

  // Offsets and reasons as CPython 3.11's json.loads reports them (FastAPI's parser).
  it.each<[string, number, string]>([
    ['{"a": }', 6, "Expecting value"],
    ["{", 1, "Expecting property name enclosed in double quotes"],
    ['{"a":1,}', 7, "Expecting property name enclosed in double quotes"],
    ["[1,2", 4, "Expecting ',' delimiter"],
    ["nul", 0, "Expecting value"],
    ['{"a" 1}', 5, "Expecting ':' delimiter"],
    ['{"a":1} x', 8, "Extra data"],
    ['"abc', 0, "Unterminated string starting at"],
    ['{"a":"\\q"}', 6, "Invalid \\escape"],
    ["tru", 0, "Expecting value"],
    ['{"a": 01}', 7, "Expecting ',' delimiter"],
    ["  ", 2, "Expecting value"],
    ['{"a":"x\ny"}', 7, "Invalid control character at"],
    ["{a:1}", 1, "Expecting property name enclosed in double quotes"],
    ["[1,]", 3, "Expecting value"],
    ['{"a":1}}', 7, "Extra data"],
    ["x", 0, "Expecting value"],
    ['{"a": -}', 6, "Expecting value"],
    ['{"a": 1.}', 7, "Expecting ',' delimiter"],
    ['{"a": .5}', 6, "Expecting value"],
    ['["\\u12"]', 3, "Invalid \\uXXXX escape"],
    ['{"😀": [1,}', 9, "Expecting value"],
    ['"\\', 0, "Unterminated string starting at"],
    ['{"a":1 "b":2}', 7, "Expecting ',' delimiter"],
    ["[[[", 3, "Expecting value"],
    ['{"a"', 4, "Expecting ':' delimiter"],
    ['{"a":', 5, "Expecting value"],
    ['{"a":1,', 7, "Expecting property name enclosed in double quotes"],
    ["[1", 2, "Expecting ',' delimiter"],
  ])("locates the fault in %j at %d", (text, position, reason) => {
    const result = parseJsonBody(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.body.detail).toHaveLength(1);
    expect(result.body.detail[0]?.loc).toEqual(["body", position]);
    expect(result.body.detail[0]?.ctx).toEqual({ error: reason });
  });

  it("scans valid JSON without finding a fault", () => {
    const texts = ['{"a": [1, -2.5e+3, true, false, null, "x\\n\\u00e9"], "b": {}}', " [ ] ", '"😀"', "0"];
    for (const text of texts) expect(locateJsonSyntaxError(text)).toBeNull();
  });

  it("copes with very deep nesting", () => {
    const depth = 100_000;
    const text = "[".repeat(depth);
    expect(locateJsonSyntaxError(text)).toEqual({ position: depth, message: "Expecting value" });
  });
});

describe("validateBody", () => {
  const schema = IngestionDocumentSchema;

  it("returns the parsed value", () => {
    const result = validateBody(schema, { document: { sections: [], semantic_identifier: "s", metadata: {} } });
    expect(result.ok).toBe(true);
  });

  it("treats a null body as missing, as FastAPI does", () => {
    expect(validateBody(schema, null)).toEqual({
      ok: false,
      body: { detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] },
    });
  });

  it("takes another loc prefix", () => {
    const result = validateBody(z.object({ n: z.int() }), { n: "x" }, { locPrefix: ["query"] });
    expect(result.ok ? null : result.body.detail[0]?.loc).toEqual(["query", "n"]);
  });
});

describe("stripNulCharacters", () => {
  it("removes NUL from every string and key, deeply", () => {
    const input = {
      "ti\u0000tle": "a\u0000b\u0000",
      list: ["\u0000", 1, null, true, { "\u0000k": ["x\u0000y"] }],
      clean: "unchanged",
    };
    expect(stripNulCharacters(input)).toEqual({
      title: "ab",
      list: ["", 1, null, true, { k: ["xy"] }],
      clean: "unchanged",
    });
  });

  it("leaves the input untouched", () => {
    const input = { a: "x\u0000" };
    stripNulCharacters(input);
    expect(input.a).toBe("x\u0000");
  });

  it("keeps a __proto__ key a plain key", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "\\u0000yes"}}') as unknown;
    const stripped = stripNulCharacters(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(Object.hasOwn(stripped, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("passes scalars through", () => {
    expect(stripNulCharacters(5)).toBe(5);
    expect(stripNulCharacters(null)).toBeNull();
    expect(stripNulCharacters("\u0000")).toBe("");
  });

  it("makes a body with NUL characters valid for storage", () => {
    const text = '{"document": {"sections": [{"text": "a\\u0000b"}], "semantic_identifier": "s\\u0000", "metadata": {"k\\u0000": "v"}}}';
    const parsed = parseJsonBody(text);
    if (!parsed.ok) throw new Error("expected JSON");
    const result = validateBody(IngestionDocumentSchema, stripNulCharacters(parsed.value));
    if (!result.ok) throw new Error("expected a valid body");
    expect(result.data.document.sections).toEqual([{ text: "ab" }]);
    expect(result.data.document.semantic_identifier).toBe("s");
    expect(result.data.document.metadata).toEqual({ k: "v" });
  });
});
