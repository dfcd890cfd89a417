import { describe, expect, it } from "vitest";
import { ConnectorIndexingStatusResponseSchema, IndexingStatusRequestSchema } from "./indexing-status";
import { DocumentDetailSchema } from "./ingested-document";
import { IngestionBatchResponseSchema } from "./ingestion-batch";
import { SearchRequestSchema } from "./search";
import { camelInput, camelSchema, fromWire, toWire, type CamelOf } from "./wire-case";

const detail: CamelOf<typeof DocumentDetailSchema> = {
  id: "doc-1",
  semanticIdentifier: "Doc 1",
  title: null,
  source: "file",
  // Metadata keys are the client's data: never renamed.
  metadata: { owner_team: "search", tag_list: ["a_b"] },
  docUpdatedAt: "2024-01-01T00:00:00.000Z",
  sections: [{ text: "hello", link: null, imageFileId: null }],
  primaryOwners: [{ first_name: undefined, displayName: "Ada" } as never],
  secondaryOwners: null,
  externalAccess: { externalUserEmails: ["a@example.com"], externalUserGroupIds: [], isPublic: false },
  additionalInfo: { nested_key: { kept_as_is: 1 } },
  docMetadata: { some_key: { inner_key: 2 } },
  fromIngestionApi: true,
  indexingStatus: "indexed",
  currentVersion: 2,
  indexedVersion: 2,
  chunkCount: 1,
  indexedAt: "2024-01-01T00:00:01.000Z",
  lastError: null,
  attempts: 1,
  ccPairIds: [1],
};

describe("wire case", () => {
  it("renames the schema's keys, keeps records' keys and unknown values, and drops undeclared fields", () => {
    const wire = toWire(DocumentDetailSchema, { ...detail, leaked: "secret" } as typeof detail);
    expect(wire).toMatchObject({
      semantic_identifier: "Doc 1",
      metadata: { owner_team: "search", tag_list: ["a_b"] },
      sections: [{ text: "hello", link: null, image_file_id: null }],
      primary_owners: [{ display_name: "Ada" }],
      external_access: { external_user_emails: ["a@example.com"], external_user_group_ids: [], is_public: false },
      additional_info: { nested_key: { kept_as_is: 1 } },
      doc_metadata: { some_key: { inner_key: 2 } },
      cc_pair_ids: [1],
    });
    expect(Object.keys(wire)).not.toContain("leaked");
    expect(DocumentDetailSchema.parse(wire)).toEqual(wire);
    expect(fromWire(DocumentDetailSchema, wire)).toEqual({ ...detail, primaryOwners: [{ displayName: "Ada" }] });
  });

  it("maps each member of a union by its own keys", () => {
    const listing = toWire(ConnectorIndexingStatusResponseSchema, [
      {
        source: "slack",
        summary: { totalConnectors: 2, activeConnectors: 1, publicConnectors: 1, totalDocsIndexed: 3 },
        currentPage: 1,
        totalPages: 1,
        indexingStatuses: [
          { id: 7, source: "federated_slack", name: "Federated Slack" },
          {
            ccPairId: 3,
            name: "pair",
            source: "slack",
            accessType: "public",
            ccPairStatus: "ACTIVE",
            inProgress: false,
            inRepeatedErrorState: false,
            lastFinishedStatus: null,
            lastStatus: null,
            lastSuccess: null,
            isEditable: true,
            permissions: { edit: true, pause: true, delete: true },
            docsIndexed: 3,
            latestIndexAttemptDocsIndexed: null,
          },
        ],
      },
    ]);
    expect(ConnectorIndexingStatusResponseSchema.parse(listing)).toEqual(listing);
    expect(listing[0]?.indexing_statuses[1]).toMatchObject({ cc_pair_id: 3, latest_index_attempt_docs_indexed: null });
    const batch = toWire(IngestionBatchResponseSchema, {
      results: [{ documentId: "a", alreadyExisted: false }, { error: { status: 422, detail: [] } }],
    });
    expect(batch).toEqual({ results: [{ document_id: "a", already_existed: false }, { error: { status: 422, detail: [] } }] });
  });

  it("reads a parsed request into camelCase, and builds the camelCase schema", () => {
    const request = SearchRequestSchema.parse({ query: "q", filters: { cc_pair_ids: ["2"] }, principal: { email: "a@b.c" } });
    expect(fromWire(SearchRequestSchema, request)).toEqual({
      query: "q",
      limit: 10,
      filters: { sources: null, ccPairIds: [2], tags: null, docUpdatedAfter: null, docUpdatedBefore: null },
      principal: { email: "a@b.c", groupIds: [] },
    });
    const camel = camelSchema(DocumentDetailSchema);
    expect(camel.parse({ ...detail, extra: 1 })).toEqual({ ...detail, primaryOwners: [{ displayName: "Ada" }] });
    expect(camel.safeParse({ ...detail, ccPairIds: undefined }).success).toBe(false);
  });

  it("keeps a record's keys as data both ways: source names in the status listing's `source_to_page`", () => {
    const request = IndexingStatusRequestSchema.parse({ source_to_page: { google_drive: 2, google_sites: 3 }, get_all_connectors: true });
    const camel = fromWire(IndexingStatusRequestSchema, request);
    expect(camel).toMatchObject({ sourceToPage: { google_drive: 2, google_sites: 3 }, getAllConnectors: true, accessTypeFilters: [] });
    expect(toWire(IndexingStatusRequestSchema, camel)).toEqual(request);
  });

  it("parses a camelCase request with the wire schema's own checks, coercions and defaults", () => {
    const input = camelInput(SearchRequestSchema);
    expect(input.parse({ query: "q", filters: { ccPairIds: [2], docUpdatedAfter: "2024-01-01T00:00:00Z" } })).toEqual({
      query: "q",
      limit: 10,
      filters: { sources: null, ccPairIds: [2], tags: null, docUpdatedAfter: new Date("2024-01-01T00:00:00Z"), docUpdatedBefore: null },
      principal: null,
    });
    const tooManyTerms = input.safeParse({ query: Array.from({ length: 65 }, (_, i) => `w${i}`).join(" ") });
    expect(tooManyTerms.success).toBe(false);
    const badPair = input.safeParse({ query: "q", filters: { ccPairIds: ["x"] } });
    expect(badPair.error?.issues[0]?.path).toEqual(["filters", "cc_pair_ids", 0]);
    // The wire schema's list limits hold for the console too.
    const tooManyPairs = input.safeParse({ query: "q", filters: { ccPairIds: Array.from({ length: 200_000 }, (_, i) => i + 1) } });
    expect(tooManyPairs.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [["filters", "cc_pair_ids"], "List should have at most 1000 items after validation, not 200000"],
    ]);
  });
});
