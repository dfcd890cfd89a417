import { describe, expect, it } from "vitest";
import { buildSearchFilter } from "./build-search-filter";
import { SearchIndexError } from "./search-index-error";

describe("buildSearchFilter", () => {
  it("has no condition for a caller who sees everything and no filters", () => {
    expect(buildSearchFilter({ all: true }, null)).toBeNull();
  });

  it("doubles single quotes and leaves backslashes as they are", () => {
    const where = buildSearchFilter(
      { publicPairIds: [], visiblePairIds: [], email: "o'brien\\'@x", groups: ["g'1"] },
      { sources: ["we'b"] },
    );
    expect(where).toContain("array_has(external_user_emails, 'o''brien\\''@x')");
    expect(where).toContain("'g''1'");
    expect(where).toContain("source IN ('we''b')");
  });

  it("refuses a pair id that is not a 32-bit integer", () => {
    for (const id of [1.5, 2 ** 31, -(2 ** 31) - 1]) {
      expect(() => buildSearchFilter({ publicPairIds: [id], visiblePairIds: [], email: null, groups: [] }, null)).toThrow(SearchIndexError);
    }
  });

  it("writes pair ids as Int32 literals, the type of cc_pair_ids (an Int64 would keep LanceDB off its index)", () => {
    expect(buildSearchFilter({ all: true }, { ccPairIds: [7, -(2 ** 31)] })).toBe(
      `array_has_any(cc_pair_ids, [arrow_cast(7, 'Int32'), arrow_cast(${-(2 ** 31)}, 'Int32')])`,
    );
  });

  it("matches nothing for an empty filter list, as = ANY('{}') did", () => {
    expect(buildSearchFilter({ all: true }, { ccPairIds: [] })).toBe("FALSE");
  });
});
