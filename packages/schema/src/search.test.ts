import { describe, expect, it } from "vitest";
import { validateBody } from "./request-body";
import { countSearchQueryTerms, MAX_SEARCH_QUERY_LENGTH, MAX_SEARCH_QUERY_TERMS, SearchRequestSchema } from "./search";

function detail(body: unknown) {
  const result = validateBody(SearchRequestSchema, body, { locPrefix: ["body"] });
  if (result.ok) throw new Error(`expected a 422, got ${JSON.stringify(result.data)}`);
  return result.body.detail;
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(" ");

describe("search filter limits", () => {
  it.each([
    ["cc_pair_ids", 1000, 1],
    ["sources", 100, "web"],
    ["tags", 100, { key: "k", value: "v" }],
  ] as const)("refuses more than the limit of %s with pydantic's too_long naming it", (field, limit, item) => {
    expect(validateBody(SearchRequestSchema, { query: "q", filters: { [field]: Array.from({ length: limit }, () => item) } }).ok).toBe(true);
    const items = Array.from({ length: 200_000 }, () => item);
    const [fault, ...rest] = detail({ query: "q", filters: { [field]: items } });
    expect(rest).toEqual([]);
    expect(fault).toMatchObject({
      type: "too_long",
      loc: ["body", "filters", field],
      msg: `List should have at most ${limit} items after validation, not 200000`,
      ctx: { field_type: "List", max_length: limit, actual_length: 200_000 },
    });
    expect(fault?.input).toHaveLength(10);
  });
});

describe("search query limits", () => {
  it("counts bare, excluded and quoted words as terms, not quotes or a lone dash", () => {
    expect(countSearchQueryTerms('alpha -beta "gamma delta" - "" -"epsilon zeta"')).toBe(6);
    expect(countSearchQueryTerms("  \t\n ")).toBe(0);
    expect(countSearchQueryTerms("já 😀 x")).toBe(3);
  });

  it("accepts 1,000 characters and 64 terms", () => {
    expect(validateBody(SearchRequestSchema, { query: "x".repeat(MAX_SEARCH_QUERY_LENGTH) }).ok).toBe(true);
    expect(validateBody(SearchRequestSchema, { query: words(MAX_SEARCH_QUERY_TERMS) }).ok).toBe(true);
    // Characters are code points, as Python counts them: 1,000 emoji are 2,000 UTF-16 units.
    expect(validateBody(SearchRequestSchema, { query: "😀".repeat(MAX_SEARCH_QUERY_LENGTH) }).ok).toBe(true);
  });

  it("refuses 1,001 characters with pydantic's string_too_long", () => {
    const query = "x".repeat(MAX_SEARCH_QUERY_LENGTH + 1);
    expect(detail({ query })).toEqual([
      { type: "string_too_long", loc: ["body", "query"], msg: "String should have at most 1000 characters", input: `${"x".repeat(255)}…`, ctx: { max_length: 1000 } },
    ]);
  });

  it("refuses 65 terms with a value_error naming the limit, quoted words counted", () => {
    const query = `${words(63)} "one two"`;
    expect(detail({ query })).toEqual([
      { type: "value_error", loc: ["body", "query"], msg: "Value error, a search query has at most 64 terms, not 65", input: query },
    ]);
  });

  it("reports only the length when a query is both too long and has too many terms", () => {
    const query = words(400);
    expect(detail({ query }).map((item) => item.type)).toEqual(["string_too_long"]);
  });
});
