import { describe, expect, it } from "vitest";
import { z } from "zod";
import { IngestionDocumentSchema } from "./ingestion";
import { validateBody } from "./request-body";
import {
  boundValidationErrorBody,
  HTTPValidationErrorSchema,
  MAX_VALIDATION_ERROR_BODY_BYTES,
  toValidationErrorBody,
} from "./validation-error";
import { formatExpected, MAX_VALIDATION_ERROR_ITEMS } from "./pydantic-errors";
import { ValidationTimeoutError } from "./validation-deadline";

/** Plain zod schemas (not built with the py* builders) still get pydantic's names. */
function bodyFor(schema: z.ZodType, value: unknown, reportInput = true) {
  const result = schema.safeParse(value, { reportInput });
  if (result.success) throw new Error("expected a failure");
  return toValidationErrorBody(result.error.issues, { input: value });
}

describe("toValidationErrorBody with plain zod issues", () => {
  const schema = z.object({
    name: z.string().max(3),
    count: z.int().min(1),
    flag: z.boolean(),
    tags: z.array(z.string()),
    kind: z.enum(["a", "b", "c"]),
    nested: z.object({ inner: z.string() }),
  });

  it("maps types, bounds and enums", () => {
    const body = bodyFor(schema, { name: "long", count: 0, flag: "x", tags: {}, kind: "d", nested: { inner: 1 } });
    expect(body.detail.map((item) => [item.loc, item.type, item.msg])).toEqual([
      [["body", "name"], "string_too_long", "String should have at most 3 characters"],
      [["body", "count"], "greater_than_equal", "Input should be greater than or equal to 1"],
      [["body", "flag"], "bool_type", "Input should be a valid boolean"],
      [["body", "tags"], "list_type", "Input should be a valid list"],
      [["body", "kind"], "enum", "Input should be 'a', 'b' or 'c'"],
      [["body", "nested", "inner"], "string_type", "Input should be a valid string"],
    ]);
  });

  it("reports absent keys as missing with the parent as input, even without reported inputs", () => {
    const body = bodyFor(z.object({ a: z.string(), b: z.object({ c: z.int() }) }), { b: {} }, false);
    expect(body.detail).toEqual([
      { type: "missing", loc: ["body", "a"], msg: "Field required", input: { b: {} } },
      { type: "missing", loc: ["body", "b", "c"], msg: "Field required", input: {} },
    ]);
  });

  it("finds inputs by path when zod did not report them", () => {
    const body = bodyFor(z.object({ list: z.array(z.int()) }), { list: [1, 2.5, true] }, false);
    expect(body.detail).toEqual([
      {
        type: "int_from_float",
        loc: ["body", "list", 1],
        msg: "Input should be a valid integer, got a number with a fractional part",
        input: 2.5,
      },
      { type: "float_type", loc: ["body", "list", 2], msg: "Input should be a valid number", input: true },
    ]);
  });

  it("maps strict-object extra keys, refinements and discriminated unions", () => {
    expect(bodyFor(z.strictObject({ a: z.string() }), { a: "x", b: 1 }).detail).toEqual([
      { type: "extra_forbidden", loc: ["body", "b"], msg: "Extra inputs are not permitted", input: 1 },
    ]);
    expect(bodyFor(z.string().refine((value) => value === "ok", "must be ok"), "no").detail).toEqual([
      { type: "value_error", loc: ["body"], msg: "Value error, must be ok", input: "no" },
    ]);
    const tagged = z.object({
      pet: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("cat") }),
        z.object({ kind: z.literal("dog") }),
      ]),
    });
    expect(bodyFor(tagged, { pet: { kind: "cow" } }).detail).toEqual([
      {
        type: "union_tag_invalid",
        loc: ["body", "pet"],
        msg: "Input tag 'cow' found using 'kind' does not match any of the expected tags: 'cat', 'dog'",
        input: { kind: "cow" },
        ctx: { discriminator: "'kind'", tag: "cow", expected_tags: "'cat', 'dog'" },
      },
    ]);
  });

  it("takes another loc prefix", () => {
    const result = z.object({ a: z.string() }).safeParse({ a: 1 });
    if (result.success) throw new Error("expected a failure");
    expect(toValidationErrorBody(result.error.issues, { locPrefix: ["query"] }).detail[0]?.loc).toEqual(["query", "a"]);
  });

  it("produces bodies that match HTTPValidationErrorSchema", () => {
    const body = bodyFor(schema, {});
    expect(HTTPValidationErrorSchema.parse(body)).toEqual(body);
  });
});

describe("a 422's bounds", () => {
  it("checks only the first 200 items of a long, mostly invalid list, lists 100 items, then one counting those left out", () => {
    const sections = Array.from({ length: 100_000 }, () => ({ link: "x" }));
    const document = { sections, source: "web", semantic_identifier: "s", metadata: {} };
    const started = Date.now();
    const result = validateBody(IngestionDocumentSchema, { document });
    expect(Date.now() - started).toBeLessThan(1_000);
    if (result.ok) throw new Error("expected a failure");
    const { detail } = result.body;
    expect(detail).toHaveLength(MAX_VALIDATION_ERROR_ITEMS + 1);
    // Two items per section (one per union member) for the first 200, and the one saying validation stopped.
    expect(detail.at(-1)).toEqual({
      type: "too_many_errors",
      loc: [],
      msg: "301 more errors left out; a 422 lists at most 100",
      input: null,
      ctx: { max_errors: 100, omitted: 301 },
    });
    expect(JSON.stringify(result.body).length).toBeLessThan(MAX_VALIDATION_ERROR_BODY_BYTES);
    const stopped = validateBody(IngestionDocumentSchema, { document: { ...document, sections: sections.slice(0, 250).map(() => 5) } });
    if (stopped.ok) throw new Error("expected a failure");
    expect(stopped.body.detail).toHaveLength(MAX_VALIDATION_ERROR_ITEMS + 1);
  });

  it("validates a long list whole when few of its first 200 items are invalid", () => {
    const result = validateBody(IngestionDocumentSchema, {
      document: { sections: [...Array.from({ length: 150 }, () => ({ text: "ok" })), ...Array.from({ length: 100 }, () => ({ text: 1, image_file_id: 1 }))], semantic_identifier: "s", metadata: {} },
    });
    if (result.ok) throw new Error("expected a failure");
    // 50 bad sections among the first 200 are too few to stop: every item is validated.
    expect(result.body.detail.filter((item) => item.type !== "too_many_errors").every((item) => item.loc[3] as number >= 150)).toBe(true);
  });

  it("cuts each echoed input: strings to 256 characters, lists and objects to 10 items, 5 levels deep", () => {
    const body = boundValidationErrorBody({
      detail: [
        { type: "string_type", loc: ["body", "k".repeat(1000)], msg: "m", input: "y".repeat(10_000) },
        { type: "list_type", loc: ["body"], msg: "m", input: Array.from({ length: 1000 }, (_, i) => i) },
        { type: "dict_type", loc: ["body"], msg: "m", input: { a: { b: { c: { d: { e: { f: 1 } } } } } } },
      ],
    });
    expect(body.detail[0]).toEqual({ type: "string_type", loc: ["body", `${"k".repeat(255)}…`], msg: "m", input: `${"y".repeat(255)}…` });
    expect(body.detail[1]?.input).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(body.detail[2]?.input).toEqual({ a: { b: { c: { d: { e: "…" } } } } });
  });

  it("stays under 64 kB when each item is large, and bounding twice changes nothing", () => {
    const item = { type: "enum", loc: ["body", "x"], msg: "Input should be " + "'a', ".repeat(300), input: "z".repeat(300) };
    const once = boundValidationErrorBody({ detail: Array.from({ length: 500 }, () => item) });
    expect(JSON.stringify(once).length).toBeLessThan(MAX_VALIDATION_ERROR_BODY_BYTES);
    expect(once.detail.at(-1)?.type).toBe("too_many_errors");
    expect(boundValidationErrorBody(once)).toEqual(once);
  });

  it("keeps a summary item's own loc, msg and ctx, adding those it cuts to its count", () => {
    const item = { type: "string_type", loc: ["body", "x"], msg: "m", input: 1 };
    const summary = { type: "too_many_errors", loc: ["body", "documents"], msg: "stopped", input: null, ctx: { max_errors: 100, omitted: 5, unchecked_items: 9 } };
    const body = boundValidationErrorBody({ detail: [...Array.from({ length: 120 }, () => item), summary] });
    expect(body.detail).toHaveLength(101);
    expect(body.detail.at(-1)).toEqual({ ...summary, ctx: { max_errors: 100, omitted: 25, unchecked_items: 9 } });
  });
});

describe("validation's deadline", () => {
  const document = (sections: number) => ({
    document: { id: "d", semantic_identifier: "s", metadata: {}, sections: Array.from({ length: sections }, () => ({ text: "" })) },
  });

  it("stops a validation still running at its deadline by throwing ValidationTimeoutError", () => {
    const started = performance.now();
    expect(() => validateBody(IngestionDocumentSchema, document(1_000_000), { deadline: started + 100 })).toThrow(ValidationTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("leaves a validation that ends in time, and one without a deadline, as they were; a deadline already past throws at once", () => {
    expect(validateBody(IngestionDocumentSchema, document(10), { deadline: performance.now() + 5_000 }).ok).toBe(true);
    expect(validateBody(IngestionDocumentSchema, document(10_000)).ok).toBe(true);
    expect(() => validateBody(IngestionDocumentSchema, document(1), { deadline: performance.now() - 1 })).toThrow(ValidationTimeoutError);
  });
});

describe("formatExpected", () => {
  it("renders values as pydantic does", () => {
    expect(formatExpected(["a"])).toBe("'a'");
    expect(formatExpected(["a", "b"])).toBe("'a' or 'b'");
    expect(formatExpected([">", "<", "="])).toBe("'>', '<' or '='");
  });
});
