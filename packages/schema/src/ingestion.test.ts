import { describe, expect, it } from "vitest";
import { IngestionDocumentSchema, IngestionResultSchema, type IngestionDocument } from "./ingestion";
import { validateBody } from "./request-body";
import type { ValidationError } from "./validation-error";

const baseDocument = { sections: [{ text: "hello" }], semantic_identifier: "Doc", metadata: {} };

function body(document: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { document: { ...baseDocument, ...document }, ...extra };
}

function accept(value: unknown): IngestionDocument {
  const result = validateBody(IngestionDocumentSchema, value);
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.body)}`);
  return result.data;
}

function reject(value: unknown): ValidationError[] {
  const result = validateBody(IngestionDocumentSchema, value);
  if (result.ok) throw new Error(`expected a 422, got ${JSON.stringify(result.data)}`);
  return result.body.detail;
}

/** The (loc, type) pairs of a 422, the part clients branch on. */
function faults(value: unknown): Array<[Array<string | number>, string]> {
  return reject(value).map((item) => [item.loc, item.type]);
}

describe("IngestionDocumentSchema: required fields", () => {
  it("accepts the smallest valid document", () => {
    const parsed = accept(body({}));
    expect(parsed.document.semantic_identifier).toBe("Doc");
    expect(parsed.document.from_ingestion_api).toBe(false);
    expect(parsed.cc_pair_id).toBeUndefined();
  });

  it("reports a missing document with the body as input", () => {
    const detail = reject({ cc_pair_id: 3 });
    expect(detail).toEqual([{ type: "missing", loc: ["body", "document"], msg: "Field required", input: { cc_pair_id: 3 } }]);
  });

  it("reports every missing field of the document, with the document as input", () => {
    const detail = reject({ document: { title: "t" } });
    expect(detail).toEqual([
      { type: "missing", loc: ["body", "document", "sections"], msg: "Field required", input: { title: "t" } },
      { type: "missing", loc: ["body", "document", "semantic_identifier"], msg: "Field required", input: { title: "t" } },
      { type: "missing", loc: ["body", "document", "metadata"], msg: "Field required", input: { title: "t" } },
    ]);
  });

  it.each(["sections", "semantic_identifier", "metadata"])("reports %s alone when only it is missing", (field) => {
    const document: Record<string, unknown> = { ...baseDocument };
    delete document[field];
    expect(faults({ document })).toEqual([[["body", "document", field], "missing"]]);
  });

  it("treats null for a required field as a wrong type, not as missing", () => {
    expect(faults(body({ semantic_identifier: null }))).toEqual([[["body", "document", "semantic_identifier"], "string_type"]]);
    expect(faults(body({ sections: null }))).toEqual([[["body", "document", "sections"], "list_type"]]);
    expect(faults(body({ metadata: null }))).toEqual([[["body", "document", "metadata"], "dict_type"]]);
  });
});

describe("IngestionDocumentSchema: wrong types", () => {
  it.each<[string, Record<string, unknown>, Array<string | number>, string]>([
    ["id", { id: 5 }, ["body", "document", "id"], "string_type"],
    ["sections", { sections: "text" }, ["body", "document", "sections"], "list_type"],
    ["source", { source: "nowhere" }, ["body", "document", "source"], "enum"],
    ["source (number)", { source: 3 }, ["body", "document", "source"], "enum"],
    ["semantic_identifier", { semantic_identifier: 42 }, ["body", "document", "semantic_identifier"], "string_type"],
    ["metadata", { metadata: ["a"] }, ["body", "document", "metadata"], "dict_type"],
    ["doc_updated_at", { doc_updated_at: "yesterday" }, ["body", "document", "doc_updated_at"], "datetime_from_date_parsing"],
    ["doc_updated_at (bool)", { doc_updated_at: true }, ["body", "document", "doc_updated_at"], "datetime_type"],
    ["chunk_count", { chunk_count: "many" }, ["body", "document", "chunk_count"], "int_parsing"],
    ["chunk_count (list)", { chunk_count: [1] }, ["body", "document", "chunk_count"], "int_type"],
    ["chunk_count (fraction)", { chunk_count: 1.5 }, ["body", "document", "chunk_count"], "int_from_float"],
    ["primary_owners", { primary_owners: {} }, ["body", "document", "primary_owners"], "list_type"],
    ["primary_owners item", { primary_owners: ["x"] }, ["body", "document", "primary_owners", 0], "model_attributes_type"],
    ["primary_owners field", { primary_owners: [{ email: 1 }] }, ["body", "document", "primary_owners", 0, "email"], "string_type"],
    ["secondary_owners", { secondary_owners: "x" }, ["body", "document", "secondary_owners"], "list_type"],
    ["title", { title: false }, ["body", "document", "title"], "string_type"],
    ["from_ingestion_api", { from_ingestion_api: "maybe" }, ["body", "document", "from_ingestion_api"], "bool_parsing"],
    ["from_ingestion_api (null)", { from_ingestion_api: null }, ["body", "document", "from_ingestion_api"], "bool_type"],
    ["external_access", { external_access: "all" }, ["body", "document", "external_access"], "model_attributes_type"],
    ["doc_metadata", { doc_metadata: "x" }, ["body", "document", "doc_metadata"], "dict_type"],
  ])("%s", (_name, document, loc, type) => {
    expect(faults(body(document))).toEqual([[loc, type]]);
  });

  it("reports a wrong cc_pair_id", () => {
    expect(faults(body({}, { cc_pair_id: "three" }))).toEqual([[["body", "cc_pair_id"], "int_parsing"]]);
    expect(faults(body({}, { cc_pair_id: {} }))).toEqual([[["body", "cc_pair_id"], "int_type"]]);
  });

  it("reports a body or document that is not an object as model_attributes_type", () => {
    expect(reject([])).toEqual([
      {
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: [],
      },
    ]);
    expect(faults({ document: "doc" })).toEqual([[["body", "document"], "model_attributes_type"]]);
    expect(reject({ document: null })).toEqual([
      {
        type: "model_attributes_type",
        loc: ["body", "document"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: null,
      },
    ]);
  });

  it("uses pydantic's messages", () => {
    const [idError] = reject(body({ id: 5 }));
    expect(idError).toEqual({ type: "string_type", loc: ["body", "document", "id"], msg: "Input should be a valid string", input: 5 });
    const [countError] = reject(body({ chunk_count: "x" }));
    expect(countError?.msg).toBe("Input should be a valid integer, unable to parse string as an integer");
    const [sourceError] = reject(body({ source: "nowhere" }));
    expect(sourceError?.msg).toMatch(/^Input should be 'ingestion_api', 'slack', 'web', .* or 'user_file'$/);
    expect(sourceError?.ctx?.expected).toBe(sourceError?.msg.replace("Input should be ", ""));
    expect(sourceError?.input).toBe("nowhere");
  });

  it("reports several faults at once", () => {
    expect(faults({ document: { ...baseDocument, id: 1, title: 2 }, cc_pair_id: "x" })).toEqual([
      [["body", "document", "id"], "string_type"],
      [["body", "document", "title"], "string_type"],
      [["body", "cc_pair_id"], "int_parsing"],
    ]);
  });

  it("ignores and drops unknown fields", () => {
    const parsed = accept({ ...body({ colour: "blue" }), extra: true });
    expect(parsed).not.toHaveProperty("extra");
    expect(parsed.document).not.toHaveProperty("colour");
  });
});

describe("IngestionDocumentSchema: lax coercion", () => {
  it.each<[unknown, number]>([
    ["5", 5],
    [" 7 ", 7],
    ["5.0", 5],
    ["1_000", 1000],
    [5.0, 5],
    [true, 1],
  ])("reads %j as the integer %d", (input, expected) => {
    expect(accept(body({ chunk_count: input })).document.chunk_count).toBe(expected);
    expect(accept(body({}, { cc_pair_id: input })).cc_pair_id).toBe(expected);
  });

  it.each(["5.", "5.5", "0x10", ""])("refuses %j as an integer", (input) => {
    expect(faults(body({ chunk_count: input }))).toEqual([[["body", "document", "chunk_count"], "int_parsing"]]);
  });

  it.each<[unknown, boolean]>([
    ["true", true],
    ["false", false],
    ["TRUE", true],
    ["1", true],
    ["0", false],
    ["yes", true],
    ["no", false],
    ["on", true],
    ["off", false],
    ["t", true],
    ["f", false],
    ["y", true],
    ["n", false],
    [1, true],
    [0, false],
  ])("reads %j as the boolean %s", (input, expected) => {
    const parsed = accept(body({ from_ingestion_api: input, external_access: { external_user_emails: [], external_user_group_ids: [], is_public: input } }));
    expect(parsed.document.from_ingestion_api).toBe(expected);
    expect(parsed.document.external_access?.is_public).toBe(expected);
  });

  it("refuses other numbers and strings as booleans", () => {
    expect(faults(body({ from_ingestion_api: 2 }))).toEqual([[["body", "document", "from_ingestion_api"], "bool_parsing"]]);
    expect(faults(body({ from_ingestion_api: 0.5 }))).toEqual([[["body", "document", "from_ingestion_api"], "bool_type"]]);
    expect(faults(body({ from_ingestion_api: " true" }))).toEqual([[["body", "document", "from_ingestion_api"], "bool_parsing"]]);
  });

  it("does not turn numbers into strings", () => {
    expect(faults(body({ semantic_identifier: 12, title: 1.5 }))).toEqual([
      [["body", "document", "semantic_identifier"], "string_type"],
      [["body", "document", "title"], "string_type"],
    ]);
  });

  it("accepts null for every nullable field", () => {
    const parsed = accept(
      body({
        id: null,
        source: null,
        doc_updated_at: null,
        chunk_count: null,
        primary_owners: null,
        secondary_owners: null,
        title: null,
        external_access: null,
        doc_metadata: null,
        additional_info: null,
      }, { cc_pair_id: null }),
    );
    expect(parsed.document.source).toBeNull();
    expect(parsed.cc_pair_id).toBeNull();
  });

  it("keeps additional_info and doc_metadata as given", () => {
    const parsed = accept(body({ additional_info: [1, { a: "b" }], doc_metadata: { nested: { deep: [1, null] } } }));
    expect(parsed.document.additional_info).toEqual([1, { a: "b" }]);
    expect(parsed.document.doc_metadata).toEqual({ nested: { deep: [1, null] } });
  });
});

describe("IngestionDocumentSchema: id", () => {
  it("keeps a given id verbatim", () => {
    expect(accept(body({ id: "a b/c?d%20" })).document.id).toBe("a b/c?d%20");
  });

  it("counts an empty id as omitted", () => {
    expect(accept(body({ id: "" })).document.id).toBeUndefined();
  });

  it("accepts 512 characters and refuses 513", () => {
    expect(accept(body({ id: "x".repeat(512) })).document.id).toHaveLength(512);
    const detail = reject(body({ id: "x".repeat(513) }));
    expect(detail).toEqual([
      {
        type: "string_too_long",
        loc: ["body", "document", "id"],
        msg: "String should have at most 512 characters",
        // The echoed input is cut to 256 characters (validation-error.ts).
        input: `${"x".repeat(255)}…`,
        ctx: { max_length: 512 },
      },
    ]);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(accept(body({ id: "😀".repeat(512) })).document.id).toHaveLength(1024);
    expect(faults(body({ id: "😀".repeat(513) }))).toEqual([[["body", "document", "id"], "string_too_long"]]);
  });
});

describe("IngestionDocumentSchema: metadata", () => {
  it("accepts strings, lists of strings and an empty object", () => {
    expect(accept(body({ metadata: { a: "1", b: ["x", "y"], c: [] } })).document.metadata).toEqual({ a: "1", b: ["x", "y"], c: [] });
  });

  it.each<[string, unknown, unknown]>([
    ["an integer", 5, "5"],
    ["a float", 1.5, "1.5"],
    ["a small float", 0.00001, "1e-05"],
    ["a huge float", 1.5e300, "1.5e+300"],
    ["1e16", 1e16, "1e+16"],
    ["a large integer", 123456789012345, "123456789012345"],
    ["a negative integer", -12, "-12"],
    ["true", true, "True"],
    ["false", false, "False"],
    ["null", null, "None"],
    ["an object", { a: "b" }, '{"a":"b"}'],
    ["a list of numbers", [1, 2], ["1", "2"]],
    ["a mixed list", [1, "a", null, true, 2.5], ["1", "a", "None", "True", "2.5"]],
    ["a list holding a list and an object", [[1, 2], { a: 1 }], ["[1,2]", '{"a":1}']],
  ])("coerces %s to strings as the original's newest release does", (_name, value, stored) => {
    expect(accept(body({ metadata: { k: value } })).document.metadata).toEqual({ k: stored });
  });

  it("takes the examples of validation-examples.md", () => {
    const stored = (metadata: Record<string, unknown>) => accept(body({ metadata })).document.metadata;
    expect(stored({ n: 5 })).toEqual({ n: "5" });
    expect(stored({ tags: [1, 2] })).toEqual({ tags: ["1", "2"] });
    expect(stored({ x: null })).toEqual({ x: "None" });
    expect(stored({ flag: true })).toEqual({ flag: "True" });
    expect(stored({ x: { a: "b" } })).toEqual({ x: '{"a":"b"}' });
  });

  it("refuses a metadata that is not an object", () => {
    expect(faults(body({ metadata: "k" }))).toEqual([[["body", "document", "metadata"], "dict_type"]]);
  });
});

describe("IngestionDocumentSchema: sections", () => {
  it("reads a section with text as a text section, even with an image_file_id", () => {
    const [section] = accept(body({ sections: [{ text: "hi", link: "https://x", image_file_id: "placeholder" }] })).document.sections;
    expect(section).toEqual({ text: "hi", link: "https://x", image_file_id: "placeholder" });
  });

  it("reads a section without text but with image_file_id as an image section", () => {
    const sections = accept(
      body({
        sections: [
          { image_file_id: "f1" },
          { image_file_id: "f2", text: null },
          { image_file_id: "f3", text: "" },
          { image_file_id: "f4", text: "caption" },
        ],
      }),
    ).document.sections;
    expect(sections).toEqual([
      { image_file_id: "f1" },
      { image_file_id: "f2", text: null },
      { image_file_id: "f3", text: null },
      { image_file_id: "f4", text: "caption" },
    ]);
  });

  it("accepts an empty text section and no sections at all", () => {
    expect(accept(body({ sections: [{ text: "" }] })).document.sections).toEqual([{ text: "" }]);
    expect(accept(body({ sections: [] })).document.sections).toEqual([]);
  });

  const at = (...rest: Array<string | number>) => ["body", "document", "sections", 0, ...rest];

  it.each<[string, unknown, Array<[Array<string | number>, string]>]>([
    ["an empty object", {}, [[at("TextSection", "text"), "missing"], [at("ImageSection", "image_file_id"), "missing"]]],
    ["only a link", { link: "https://x" }, [[at("TextSection", "text"), "missing"], [at("ImageSection", "image_file_id"), "missing"]]],
    [
      "text of the wrong type",
      { text: 5 },
      [
        [at("TextSection", "text"), "string_type"],
        [at("ImageSection", "image_file_id"), "missing"],
        [at("ImageSection", "text"), "string_type"],
      ],
    ],
    [
      "a non-string image_file_id and no text",
      { image_file_id: 5 },
      [
        [at("TextSection", "text"), "missing"],
        [at("TextSection", "image_file_id"), "string_type"],
        [at("ImageSection", "image_file_id"), "string_type"],
      ],
    ],
    [
      "an image section with a bad link",
      { image_file_id: "f", link: 1 },
      [
        [at("TextSection", "text"), "missing"],
        [at("TextSection", "link"), "string_type"],
        [at("ImageSection", "link"), "string_type"],
      ],
    ],
    [
      "a text section with a bad link",
      { text: "t", link: [] },
      [
        [at("TextSection", "link"), "string_type"],
        [at("ImageSection", "image_file_id"), "missing"],
        [at("ImageSection", "link"), "string_type"],
      ],
    ],
    ["a string", "text", [[at("TextSection"), "model_attributes_type"], [at("ImageSection"), "model_attributes_type"]]],
    ["null", null, [[at("TextSection"), "model_attributes_type"], [at("ImageSection"), "model_attributes_type"]]],
  ])("reports %s under each union member", (_name, section, expected) => {
    expect(faults(body({ sections: [section] }))).toEqual(expected);
  });

  it("gives the items of validation-examples.md, with the section as the input of a missing field", () => {
    expect(reject(body({ sections: [{}] }))).toEqual([
      { type: "missing", loc: at("TextSection", "text"), msg: "Field required", input: {} },
      { type: "missing", loc: at("ImageSection", "image_file_id"), msg: "Field required", input: {} },
    ]);
    expect(reject(body({ sections: [{ text: 5 }] }))).toEqual([
      { type: "string_type", loc: at("TextSection", "text"), msg: "Input should be a valid string", input: 5 },
      { type: "missing", loc: at("ImageSection", "image_file_id"), msg: "Field required", input: { text: 5 } },
      { type: "string_type", loc: at("ImageSection", "text"), msg: "Input should be a valid string", input: 5 },
    ]);
  });

  it("reports the failing section by its index", () => {
    expect(faults(body({ sections: [{ text: "ok" }, { link: "l" }] }))).toEqual([
      [["body", "document", "sections", 1, "TextSection", "text"], "missing"],
      [["body", "document", "sections", 1, "ImageSection", "image_file_id"], "missing"],
    ]);
  });
});

describe("IngestionDocumentSchema: external_access", () => {
  const access = (emails: unknown, groups: unknown = [], isPublic: unknown = false) => ({
    external_access: { external_user_emails: emails, external_user_group_ids: groups, is_public: isPublic },
  });

  it("accepts unique lists", () => {
    expect(accept(body(access(["a@x", "b@x"], ["g"]))).document.external_access).toEqual({
      external_user_emails: ["a@x", "b@x"],
      external_user_group_ids: ["g"],
      is_public: false,
    });
  });

  it("merges repeated items, as the original's sets do", () => {
    expect(accept(body(access(["a@x", "b@x", "a@x"], ["g", "g"]))).document.external_access).toEqual({
      external_user_emails: ["a@x", "b@x"],
      external_user_group_ids: ["g"],
      is_public: false,
    });
  });

  it("requires every field", () => {
    expect(faults(body({ external_access: {} }))).toEqual([
      [["body", "document", "external_access", "external_user_emails"], "missing"],
      [["body", "document", "external_access", "external_user_group_ids"], "missing"],
      [["body", "document", "external_access", "is_public"], "missing"],
    ]);
  });

  it("checks item types", () => {
    expect(faults(body(access("a@x", [1])))).toEqual([
      [["body", "document", "external_access", "external_user_emails"], "list_type"],
      [["body", "document", "external_access", "external_user_group_ids", 0], "string_type"],
    ]);
  });
});

describe("IngestionDocumentSchema: doc_updated_at", () => {
  const updatedAt = (value: unknown) => accept(body({ doc_updated_at: value })).document.doc_updated_at?.toISOString();

  it.each([
    ["2024-05-01T12:00:00Z", "2024-05-01T12:00:00.000Z"],
    ["2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00.000Z"],
    ["2024-05-01T12:00:00-0530", "2024-05-01T17:30:00.000Z"],
    ["2024-05-01T12:00:00.123456+01:00", "2024-05-01T11:00:00.123Z"],
    ["2024-05-01 12:00:00", "2024-05-01T12:00:00.000Z"],
    ["2024-05-01T12:00", "2024-05-01T12:00:00.000Z"],
    ["2024-05-01T12:00:00", "2024-05-01T12:00:00.000Z"],
    ["2024-05-01", "2024-05-01T00:00:00.000Z"],
    [1700000000, "2023-11-14T22:13:20.000Z"],
    ["1700000000", "2023-11-14T22:13:20.000Z"],
    [1700000000123, "2023-11-14T22:13:20.123Z"],
  ])("reads %j as %s", (input, expected) => {
    expect(updatedAt(input)).toBe(expected);
  });

  it("returns a Date", () => {
    expect(accept(body({ doc_updated_at: "2024-05-01T12:00:00Z" })).document.doc_updated_at).toBeInstanceOf(Date);
  });

  it.each([
    ["nope", "input is too short"],
    ["2024-13-01T00:00:00Z", "month value is outside expected range of 1-12"],
    ["2023-02-29T00:00:00Z", "day value is outside expected range"],
    ["2024-13-01", "month value is outside expected range of 1-12"],
    ["not a date", "invalid character in year"],
    // Past a valid date, the date parser's reason is the extra characters, whatever they are.
    ["2024-01-01T25:00:00Z", "unexpected extra characters at the end of the input"],
    ["2024-01-01T00:00:00Zjunk", "unexpected extra characters at the end of the input"],
    ["2024/01/01T00:00:00Z", "invalid date separator, expected `-`"],
    // An offset needs its minutes, as in pydantic: the date-time fails, the date retry names the rest.
    ["2024-05-01T01:00:00+05", "unexpected extra characters at the end of the input"],
    // Ten UTF-8 bytes are long enough: the fault is the day's, not "too short".
    ["2024-05-\u00e9", "invalid character in day"],
    // An integer beyond 64 bits is no timestamp to the parser: its fault is the text's.
    ["99999999999999999999", "invalid date separator, expected `-`"],
  ])("refuses %j: %s", (input, reason) => {
    expect(reject(body({ doc_updated_at: input }))).toEqual([
      {
        type: "datetime_from_date_parsing",
        loc: ["body", "document", "doc_updated_at"],
        msg: `Input should be a valid datetime or date, ${reason}`,
        input,
        ctx: { error: reason },
      },
    ]);
  });
});

describe("IngestionDocumentSchema: doc_updated_at in year 0", () => {
  // The parser reads year 0 (as a date, a date-time or a timestamp); Python's datetime then refuses
  // it, so the type is datetime_parsing, never the date retry's.
  it.each(["0000-01-01", "0000-01-01T00:00:00", "0000-12-31 23:59+05:00", "-62167219200000", -62167219200000])("refuses %j", (input) => {
    expect(reject(body({ doc_updated_at: input }))).toEqual([
      {
        type: "datetime_parsing",
        loc: ["body", "document", "doc_updated_at"],
        msg: "Input should be a valid datetime, year 0 is out of range",
        input,
        ctx: { error: "year 0 is out of range" },
      },
    ]);
  });
});

describe("IngestionResultSchema", () => {
  it("describes the response", () => {
    expect(IngestionResultSchema.parse({ document_id: "d", already_existed: false })).toEqual({ document_id: "d", already_existed: false });
    expect(IngestionResultSchema.safeParse({ document_id: "d" }).success).toBe(false);
  });
});
