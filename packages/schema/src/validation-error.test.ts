import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatExpected } from "./pydantic-errors";
import { HTTPValidationErrorSchema, toValidationErrorBody } from "./validation-error";

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

describe("formatExpected", () => {
  it("renders values as pydantic does", () => {
    expect(formatExpected(["a"])).toBe("'a'");
    expect(formatExpected(["a", "b"])).toBe("'a' or 'b'");
    expect(formatExpected([">", "<", "="])).toBe("'>', '<' or '='");
  });
});
