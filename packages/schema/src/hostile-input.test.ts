import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ConnectorDocumentsInputSchema } from "./admin-console";
import { IdPathSchema } from "./cc-pair";
import { decodeDocumentCursor, encodeDocumentCursor } from "./document-cursor";
import { cleanFileName } from "./file-upload";
import { CcPairIdPathSchema, DocumentIdPathSchema, DocumentPageQuerySchema } from "./ingested-document";
import { IndexingStatusRequestSchema } from "./indexing-status";
import { EventStreamQuerySchema } from "./events";
import { IngestionDocumentSchema } from "./ingestion";
import { exceedsJsonDepth, findLoneSurrogate, hasLoneSurrogate, MAX_JSON_DEPTH } from "./json-value";
import { buildOpenApiDocument } from "./openapi";
import { parseJsonBody, stripNulCharacters, validateBody } from "./request-body";
import { SearchRequestSchema } from "./search";
import { CreateWebhookRequestSchema } from "./webhook";
import type { ValidationError } from "./validation-error";

const LONE = "\ud800";
const baseDocument = { sections: [{ text: "hello" }], semantic_identifier: "Doc", metadata: {} };

function detailOf(schema: z.ZodType, value: unknown, locPrefix: Array<string | number> = ["body"]): ValidationError[] {
  const result = validateBody(schema, value, { locPrefix });
  if (result.ok) throw new Error(`expected a 422, got ${JSON.stringify(result.data)}`);
  return result.body.detail;
}

function faults(schema: z.ZodType, value: unknown, locPrefix?: Array<string | number>) {
  return detailOf(schema, value, locPrefix).map((item) => [item.loc, item.type]);
}

const ingest = (document: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  document: { ...baseDocument, ...document },
  ...extra,
});

/** `[[[…]]]` nested `depth` levels, as text. */
const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("lone UTF-16 surrogates", () => {
  it("tells paired from unpaired halves", () => {
    expect(hasLoneSurrogate("a\ud800b")).toBe(true);
    expect(hasLoneSurrogate("\udc00")).toBe(true);
    expect(hasLoneSurrogate("😀 ok")).toBe(false);
    expect(findLoneSurrogate({ a: [1, { b: `x${LONE}` }] })).toEqual({ path: ["a", 1, "b"], text: `x${LONE}`, inKey: false });
    expect(findLoneSurrogate({ ok: [{ [`k${LONE}`]: 1 }] })).toEqual({ path: ["ok", 0, `k${LONE}`], text: `k${LONE}`, inKey: true });
  });

  it("answers string_unicode with pydantic's message at the field", () => {
    expect(detailOf(IngestionDocumentSchema, ingest({ id: LONE }))).toEqual([
      {
        type: "string_unicode",
        loc: ["body", "document", "id"],
        msg: "Input should be a valid string, unable to parse raw data as a unicode string",
        input: LONE,
      },
    ]);
  });

  it.each<[string, Record<string, unknown>, Array<string | number>]>([
    ["semantic_identifier", { semantic_identifier: `a${LONE}` }, ["semantic_identifier"]],
    ["title", { title: LONE }, ["title"]],
    ["section text", { sections: [{ text: `x${LONE}` }] }, ["sections", 0, "TextSection", "text"]],
    ["a metadata value", { metadata: { k: LONE } }, ["metadata", "k"]],
    ["a metadata list item", { metadata: { k: ["ok", LONE] } }, ["metadata", "k", 1]],
    ["a metadata key", { metadata: { [LONE]: "v" } }, ["metadata", LONE, "[key]"]],
    ["an owner's email", { primary_owners: [{ email: LONE }] }, ["primary_owners", 0, "email"]],
    [
      "an external_access email",
      { external_access: { external_user_emails: [LONE], external_user_group_ids: [], is_public: false } },
      ["external_access", "external_user_emails", 0],
    ],
    ["deep in additional_info", { additional_info: { a: [{ b: LONE }] } }, ["additional_info", "a", 0, "b"]],
    ["a key in additional_info", { additional_info: { [LONE]: 1 } }, ["additional_info", LONE, "[key]"]],
    ["a doc_metadata key", { doc_metadata: { [LONE]: 1 } }, ["doc_metadata", LONE, "[key]"]],
    ["a doc_metadata value", { doc_metadata: { k: [LONE] } }, ["doc_metadata", "k", 0]],
  ])("refuses one in %s", (_name, document, loc) => {
    const items = faults(IngestionDocumentSchema, ingest(document));
    expect(items).toContainEqual([["body", "document", ...loc], "string_unicode"]);
    expect(items.every(([, type]) => type === "string_unicode" || type === "missing")).toBe(true);
  });

  it("refuses one in a search query and a tag", () => {
    expect(faults(SearchRequestSchema, { query: LONE })).toEqual([[["body", "query"], "string_unicode"]]);
    expect(faults(SearchRequestSchema, { query: "q", filters: { tags: [{ key: "k", value: LONE }] } })).toEqual([
      [["body", "filters", "tags", 0, "value"], "string_unicode"],
    ]);
  });

  it("accepts surrogate pairs (emoji)", () => {
    expect(validateBody(IngestionDocumentSchema, ingest({ id: "😀", metadata: { "😀": ["😀"] } })).ok).toBe(true);
  });
});

describe("integers bounded by PostgreSQL int4", () => {
  it("answers cc_pair_id beyond int4 with pydantic's bound errors", () => {
    expect(detailOf(IngestionDocumentSchema, ingest({}, { cc_pair_id: -2147483649 }))).toEqual([
      {
        type: "greater_than_equal",
        loc: ["body", "cc_pair_id"],
        msg: "Input should be greater than or equal to -2147483648",
        input: -2147483649,
        ctx: { ge: -2147483648 },
      },
    ]);
    expect(detailOf(IngestionDocumentSchema, ingest({}, { cc_pair_id: 2147483648 }))).toEqual([
      {
        type: "less_than_equal",
        loc: ["body", "cc_pair_id"],
        msg: "Input should be less than or equal to 2147483647",
        input: 2147483648,
        ctx: { le: 2147483647 },
      },
    ]);
  });

  it("accepts the bounds themselves", () => {
    expect(validateBody(IngestionDocumentSchema, ingest({ chunk_count: 2147483647 }, { cc_pair_id: -2147483648 })).ok).toBe(true);
  });

  it.each<[string, z.ZodType, unknown, Array<string | number>]>([
    ["chunk_count", IngestionDocumentSchema, ingest({ chunk_count: 1e20 }), ["body", "document", "chunk_count"]],
    ["chunk_count as a string", IngestionDocumentSchema, ingest({ chunk_count: "99999999999" }), ["body", "document", "chunk_count"]],
    ["search cc_pair_ids", SearchRequestSchema, { query: "q", filters: { cc_pair_ids: [1, 2147483648] } }, ["body", "filters", "cc_pair_ids", 1]],
    ["docs_count_value", IndexingStatusRequestSchema, { docs_count_operator: ">", docs_count_value: 3e9 }, ["body", "docs_count_value"]],
  ])("bounds %s", (_name, schema, value, loc) => {
    expect(faults(schema, value)).toEqual([[loc, "less_than_equal"]]);
  });

  it("bounds path ids", () => {
    expect(faults(IdPathSchema, { id: "2147483648" }, ["path"])).toEqual([[["path", "id"], "less_than_equal"]]);
    expect(faults(CcPairIdPathSchema, { cc_pair_id: "-2147483649" }, ["path"])).toEqual([[["path", "cc_pair_id"], "greater_than_equal"]]);
  });

  it("bounds console ids", () => {
    expect(ConnectorDocumentsInputSchema.safeParse({ ccPairId: 2147483648 }).success).toBe(false);
  });

  it("says the bound in the OpenAPI document", () => {
    const ingestion = JSON.stringify(buildOpenApiDocument());
    expect(ingestion).toContain('"maximum":2147483647');
    expect(ingestion).toContain('"minimum":-2147483648');
  });
});

describe("JSON nested too deeply", () => {
  it("accepts 256 levels and refuses 257 at body", () => {
    expect(parseJsonBody(nestedArrays(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parseJsonBody(nestedArrays(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      body: { detail: [{ type: "value_error", loc: ["body"], msg: "Value error, JSON nested too deeply", input: null }] },
    });
  });

  it("refuses 20,000 levels of objects inside a valid document without overflowing", () => {
    const deep = '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000);
    const text = `{"document": {"sections": [], "semantic_identifier": "s", "metadata": {}, "additional_info": ${deep}}}`;
    const parsed = parseJsonBody(text);
    expect(parsed.ok ? null : parsed.body.detail.map((item) => [item.loc, item.type])).toEqual([[["body"], "value_error"]]);
  });

  it("answers malformed deep JSON as malformed (json_invalid), without overflowing", () => {
    const parsed = parseJsonBody("[".repeat(20_000));
    expect(parsed.ok ? null : parsed.body.detail.map((item) => [item.loc, item.type])).toEqual([[["body", 20_000], "json_invalid"]]);
  });

  it("walks any depth iteratively", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}"a\\u0000b"${"]".repeat(20_000)}`) as unknown;
    expect(exceedsJsonDepth(deep)).toBe(true);
    expect(exceedsJsonDepth(deep, 20_000)).toBe(false);
    let stripped = stripNulCharacters(deep);
    for (let level = 0; level < 20_000; level += 1) stripped = (stripped as unknown[])[0];
    expect(stripped).toBe("ab");
    expect(findLoneSurrogate(deep)).toBeNull();
  });
});

describe("document ids that a URL cannot address", () => {
  it.each([".", ".."])("refuses %j at ingestion", (id) => {
    const [item] = detailOf(IngestionDocumentSchema, ingest({ id }));
    expect(item).toEqual({
      type: "value_error",
      loc: ["body", "document", "id"],
      msg: `Value error, the document id '${id}' cannot be addressed in a URL path`,
      input: id,
    });
  });

  it("accepts ids that merely contain dots", () => {
    for (const id of ["...", ".a", "a/..", "./"]) expect(validateBody(IngestionDocumentSchema, ingest({ id })).ok).toBe(true);
  });

  it("refuses NUL in a path id (a stored id never holds one)", () => {
    expect(faults(DocumentIdPathSchema, { document_id: "a\u0000b" }, ["path"])).toEqual([[["path", "document_id"], "value_error"]]);
    expect(validateBody(DocumentIdPathSchema, { document_id: "a\u0001b\u001f" }, { locPrefix: ["path"] }).ok).toBe(true);
  });
});

describe("cursors", () => {
  it("refuses a cursor that decodes to an id with NUL, or to garbage", () => {
    expect(decodeDocumentCursor(encodeDocumentCursor("a\u0000b"))).toBeNull();
    expect(decodeDocumentCursor("_w")).toBeNull();
    for (const cursor of ["a\u0000", "%00", "\u0001abc", "////"]) {
      expect(faults(DocumentPageQuerySchema, { cursor }, ["query"])).toEqual([[["query", "cursor"], "value_error"]]);
    }
  });
});

describe("upload file names", () => {
  it("lose control characters and unpaired surrogates, and keep the rest", () => {
    expect(cleanFileName("dia\u0000gram\u0007\u009f.png")).toBe("diagram.png");
    expect(cleanFileName(`a${LONE}b 😀 ü.png`)).toBe("ab 😀 ü.png");
  });
});

describe("int4 bounds in the OpenAPI document", () => {
  it("shows them on body fields and on integer path parameters", () => {
    const document = buildOpenApiDocument() as unknown as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema: unknown }> }>>;
    };
    const int4 = { type: "integer", minimum: -2147483648, maximum: 2147483647 };
    expect(document.components.schemas.IngestionDocument?.properties.cc_pair_id).toEqual({ anyOf: [int4, { type: "null" }] });
    const pathParameter = (path: string, name: string) =>
      document.paths[path]?.get?.parameters?.find((parameter) => parameter.name === name)?.schema;
    expect(pathParameter("/manage/admin/cc-pair/{id}", "id")).toEqual(int4);
    expect(pathParameter("/svc-api/connector-docs/{cc_pair_id}", "cc_pair_id")).toEqual(int4);
  });
});

describe("event ids a client sends back (after, Last-Event-ID)", () => {
  it("are a 422 past PostgreSQL's bigint, never a number the database refuses", () => {
    const parsed = EventStreamQuerySchema.parse({ after: "evt_9223372036854775807" });
    expect(parsed.after).toBe(9_223_372_036_854_775_807n);
    for (const after of ["evt_9223372036854775808", "evt_9999999999999999999"]) {
      expect(detailOf(EventStreamQuerySchema, { after }, ["query"])).toEqual([
        { type: "value_error", loc: ["query", "after"], msg: "Value error, an event id is at most evt_9223372036854775807", input: after },
      ]);
    }
    expect(faults(EventStreamQuerySchema, { after: "evt_x" }, ["query"])).toEqual([[["query", "after"], "string_pattern_mismatch"]]);
  });
});

describe("a webhook's event_types", () => {
  it("is capped like every list a client sends: a million repeats is one too_long item, refused on its length", () => {
    const eventTypes = Array.from({ length: 1_000_000 }, () => "document.indexed");
    expect(detailOf(CreateWebhookRequestSchema, { url: "https://hooks.example.com/svc", event_types: eventTypes })).toEqual([
      {
        type: "too_long",
        loc: ["body", "event_types"],
        msg: "List should have at most 100 items after validation, not 1000000",
        input: eventTypes.slice(0, 10),
        ctx: { field_type: "List", max_length: 100, actual_length: 1_000_000 },
      },
    ]);
    const withinCap = CreateWebhookRequestSchema.parse({ url: "https://hooks.example.com/svc", event_types: Array.from({ length: 100 }, () => "document.failed") });
    expect(withinCap.event_types).toEqual(["document.failed"]);
  });
});
