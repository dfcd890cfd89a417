import { describe, expect, it } from "vitest";
import { DOCUMENT_SOURCES, DocumentSourceSchema } from "./document-source";
import {
  ConnectorIndexingStatusGroupSchema,
  ConnectorIndexingStatusLiteSchema,
  ConnectorIndexingStatusResponseSchema,
  IndexingStatusRequestSchema,
} from "./indexing-status";
import { validateBody } from "./request-body";

function faults(value: unknown): Array<[Array<string | number>, string]> {
  const result = validateBody(IndexingStatusRequestSchema, value);
  if (result.ok) throw new Error("expected a 422");
  return result.body.detail.map((item) => [item.loc, item.type]);
}

describe("DOCUMENT_SOURCES", () => {
  it("holds the 55 values of the contract, unique, in its order", () => {
    expect(DOCUMENT_SOURCES).toHaveLength(55);
    expect(new Set(DOCUMENT_SOURCES).size).toBe(55);
    expect(DOCUMENT_SOURCES[0]).toBe("ingestion_api");
    expect(DOCUMENT_SOURCES.slice(-3)).toEqual(["testrail", "mock_connector", "user_file"]);
    expect(DocumentSourceSchema.options).toEqual([...DOCUMENT_SOURCES]);
  });
});

describe("IndexingStatusRequestSchema", () => {
  it("fills every default from an empty object", () => {
    expect(IndexingStatusRequestSchema.parse({})).toEqual({
      secondary_index: false,
      source: null,
      access_type_filters: [],
      last_status_filters: [],
      docs_count_operator: null,
      docs_count_value: null,
      name_filter: null,
      source_to_page: {},
      get_all_connectors: false,
    });
  });

  it("does not share default lists between requests", () => {
    const first = IndexingStatusRequestSchema.parse({});
    first.access_type_filters.push("public");
    expect(IndexingStatusRequestSchema.parse({}).access_type_filters).toEqual([]);
  });

  it("accepts every field", () => {
    const parsed = IndexingStatusRequestSchema.parse({
      secondary_index: "true",
      source: "slack",
      access_type_filters: ["public", "sync"],
      last_status_filters: ["failed", "completed_with_errors"],
      docs_count_operator: ">",
      docs_count_value: "10",
      name_filter: "wiki",
      source_to_page: { slack: 2, web: "3" },
      get_all_connectors: 1,
    });
    expect(parsed).toMatchObject({
      secondary_index: true,
      docs_count_value: 10,
      source_to_page: { slack: 2, web: 3 },
      get_all_connectors: true,
    });
  });

  it("validates the enum filters item by item", () => {
    expect(faults({ access_type_filters: ["public", "secret"], last_status_filters: ["done"] })).toEqual([
      [["body", "access_type_filters", 1], "enum"],
      [["body", "last_status_filters", 0], "enum"],
    ]);
    expect(faults({ source: "nowhere", docs_count_operator: ">=" })).toEqual([
      [["body", "source"], "enum"],
      [["body", "docs_count_operator"], "enum"],
    ]);
  });

  it("refuses a page below 1", () => {
    const result = validateBody(IndexingStatusRequestSchema, { source_to_page: { slack: 0 } });
    expect(result.ok ? null : result.body.detail).toEqual([
      {
        type: "greater_than_equal",
        loc: ["body", "source_to_page", "slack"],
        msg: "Input should be greater than or equal to 1",
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
  });

  it("refuses an unknown source as a page key, at [key]", () => {
    expect(faults({ source_to_page: { nowhere: 1, elsewhere: 2 } })).toEqual([
      [["body", "source_to_page", "nowhere", "[key]"], "enum"],
      [["body", "source_to_page", "elsewhere", "[key]"], "enum"],
    ]);
  });

  it("refuses wrong types", () => {
    expect(faults({ source_to_page: [], docs_count_value: "many", name_filter: 3, access_type_filters: "public" })).toEqual([
      [["body", "access_type_filters"], "list_type"],
      [["body", "docs_count_value"], "int_parsing"],
      [["body", "name_filter"], "string_type"],
      [["body", "source_to_page"], "dict_type"],
    ]);
    expect(faults({ source_to_page: { slack: "two" } })).toEqual([[["body", "source_to_page", "slack"], "int_parsing"]]);
  });

  it("is missing when there is no body", () => {
    expect(faults(null)).toEqual([[["body"], "missing"]]);
  });
});

describe("listing rows", () => {
  const row = {
    cc_pair_id: 2,
    name: "Wiki",
    source: "web",
    access_type: "public",
    cc_pair_status: "ACTIVE",
    in_progress: false,
    in_repeated_error_state: false,
    last_finished_status: null,
    last_status: null,
    last_success: null,
    is_editable: true,
    docs_indexed: 0,
    latest_index_attempt_docs_indexed: null,
    permissions: { edit: true, pause: true, delete: true },
  };

  it("requires every key of a row, nullable ones included", () => {
    expect(ConnectorIndexingStatusLiteSchema.parse(row)).toEqual(row);
    const { last_status: _lastStatus, ...withoutLastStatus } = row;
    expect(ConnectorIndexingStatusLiteSchema.safeParse(withoutLastStatus).success).toBe(false);
    expect(ConnectorIndexingStatusLiteSchema.safeParse({ ...row, last_success: "2024-01-01T00:00:00Z" }).success).toBe(true);
    expect(ConnectorIndexingStatusLiteSchema.safeParse({ ...row, name: null }).success).toBe(false);
  });

  it("groups pair rows and federated rows", () => {
    const group = {
      source: "slack",
      summary: { total_connectors: 2, active_connectors: 1, public_connectors: 1, total_docs_indexed: 0 },
      current_page: 1,
      total_pages: 1,
      indexing_statuses: [{ ...row, source: "slack" }, { id: 1, source: "federated_slack", name: "Federated Slack" }],
    };
    expect(ConnectorIndexingStatusGroupSchema.parse(group)).toEqual(group);
    expect(ConnectorIndexingStatusResponseSchema.parse([group])).toHaveLength(1);
  });
});
