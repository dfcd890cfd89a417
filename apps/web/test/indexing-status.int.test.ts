import { createFederatedConnector, OPERATOR_PRINCIPAL } from "@svc/core";
import { createTestPair } from "@svc/core/testing";
import {
  ConnectorIndexingStatusResponseSchema,
  type ConnectorIndexingStatusGroup,
  type ConnectorIndexingStatusLite,
  type ConnectorIndexingStatusResponse,
  type FederatedConnectorStatus,
} from "@svc/schema";
import { beforeEach, describe, expect, it } from "vitest";
import { ERROR_DETAIL, useTestApp } from "./app";
import { clearConnectors, forgetIndexingHistory, indexQueuedDocuments, insertIndexAttempts, setPairStatus } from "./connectors";
import { ingestOverApi } from "./factories";

const app = useTestApp();
const PATH = "/api/manage/admin/connector/indexing-status";

beforeEach(async () => {
  await clearConnectors(app.db);
});

async function list(body: unknown = {}, key?: string | null): Promise<ConnectorIndexingStatusResponse> {
  const response = await app.request("POST", PATH, { body, key });
  expect(response.status).toBe(200);
  // Parsing checks every row against the contract's schema: every key present, right nullability.
  return ConnectorIndexingStatusResponseSchema.parse(await response.json());
}

function group(listing: ConnectorIndexingStatusResponse, source: string): ConnectorIndexingStatusGroup {
  const found = listing.find((candidate) => candidate.source === source);
  if (!found) throw new Error(`no ${source} group in ${JSON.stringify(listing.map((entry) => entry.source))}`);
  return found;
}

function pairRows(entry: ConnectorIndexingStatusGroup): ConnectorIndexingStatusLite[] {
  return entry.indexing_statuses.filter((row): row is ConnectorIndexingStatusLite => "cc_pair_id" in row);
}

function ids(entry: ConnectorIndexingStatusGroup): Array<number | string> {
  return entry.indexing_statuses.map((row) => ("cc_pair_id" in row ? row.cc_pair_id : `federated:${row.id}`));
}

async function seedPairs(count: number, source: "file" | "web" | "slack", prefix = source): Promise<number[]> {
  const created: number[] = [];
  for (let index = 0; index < count; index += 1) created.push(await createTestPair(app.db, { name: `${prefix} ${index}`, source }));
  return created;
}

/** Ingests `count` documents into the pair and indexes `indexed` of them. */
async function seedDocuments(ccPairId: number, count: number, indexed = count): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await ingestOverApi(app, { id: `pair-${ccPairId}-doc-${index}`, ccPairId });
    if (index + 1 === indexed) await indexQueuedDocuments(app.db);
  }
}

describe("authentication and validation", () => {
  it("answers 401 with WWW-Authenticate for a missing or unknown key, before reading the body", async () => {
    for (const key of [null, "svc_unknown"]) {
      const response = await app.request("POST", PATH, { body: "{broken", key });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual(ERROR_DETAIL);
    }
  });

  it("answers 403 to basic and limited keys, 200 to curator and admin keys", async () => {
    for (const role of ["basic", "limited"] as const) {
      const response = await app.request("POST", PATH, { body: {}, key: await app.createKey(role) });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual(ERROR_DETAIL);
    }
    expect(await list({}, await app.createKey("curator"))).toEqual([]);
    expect(await list({})).toEqual([]);
  });

  it("answers 422 to a missing body and to malformed JSON", async () => {
    const missing = await app.request("POST", PATH, {});
    expect(missing.status).toBe(422);
    expect((await missing.json()) as unknown).toEqual({
      detail: [expect.objectContaining({ type: "missing", loc: ["body"], msg: "Field required" })],
    });
    const malformed = await app.request("POST", PATH, { body: '{"source": ' });
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: unknown[] }).detail).toEqual([
      expect.objectContaining({ type: "json_invalid", loc: ["body", 11] }),
    ]);
  });

  it.each([
    ["source", { source: "nowhere" }, ["body", "source"], "enum"],
    ["access_type_filters", { access_type_filters: ["public", "secret"] }, ["body", "access_type_filters", 1], "enum"],
    ["last_status_filters", { last_status_filters: ["done"] }, ["body", "last_status_filters", 0], "enum"],
    ["docs_count_operator", { docs_count_operator: ">=" }, ["body", "docs_count_operator"], "enum"],
    ["docs_count_value", { docs_count_value: "many" }, ["body", "docs_count_value"], "int_parsing"],
    ["name_filter", { name_filter: 5 }, ["body", "name_filter"], "string_type"],
    ["a page of 0", { source_to_page: { file: 0 } }, ["body", "source_to_page", "file"], "greater_than_equal"],
    ["a negative page", { source_to_page: { web: -2 } }, ["body", "source_to_page", "web"], "greater_than_equal"],
    ["an unknown page source", { source_to_page: { nowhere: 1 } }, ["body", "source_to_page", "nowhere", "[key]"], "enum"],
    ["get_all_connectors", { get_all_connectors: "sometimes" }, ["body", "get_all_connectors"], "bool_parsing"],
    ["a body that is not an object", [], ["body"], "model_attributes_type"],
  ])("answers 422 to a bad %s, at its loc", async (_name, body, loc, type) => {
    const response = await app.request("POST", PATH, { body });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: unknown[] }).detail).toContainEqual(expect.objectContaining({ loc, type }));
  });
});

describe("rows", () => {
  it("lists nothing when only the default pair exists, even when it holds documents", async () => {
    await ingestOverApi(app, { id: "default-pair-doc" });
    await indexQueuedDocuments(app.db);
    expect(await list({})).toEqual([]);
    expect(await list({ get_all_connectors: true, source: "ingestion_api" })).toEqual([]);
  });

  it("gives a pair without attempts every key, with nulls and falses for the attempt fields", async () => {
    const id = await createTestPair(app.db, { name: "Handbook", source: "file", access: "private" });
    expect(await list({})).toEqual([
      {
        source: "file",
        summary: { total_connectors: 1, active_connectors: 0, public_connectors: 0, total_docs_indexed: 0 },
        current_page: 1,
        total_pages: 1,
        indexing_statuses: [
          {
            cc_pair_id: id,
            name: "Handbook",
            source: "file",
            access_type: "private",
            cc_pair_status: "SCHEDULED",
            in_progress: false,
            in_repeated_error_state: false,
            last_finished_status: null,
            last_status: null,
            last_success: null,
            is_editable: true,
            permissions: { edit: true, pause: true, delete: true },
            docs_indexed: 0,
            latest_index_attempt_docs_indexed: null,
          },
        ],
      },
    ]);
  });

  it("derives the statuses, last success and latest count from the attempts, latest first", async () => {
    const id = await createTestPair(app.db, { name: "Wiki" });
    const successAt = new Date("2024-03-01T10:20:30.456+02:00");
    await insertIndexAttempts(app.db, id, [
      { status: "success", docsIndexed: 4, finishedAt: new Date("2024-01-01T00:00:00Z") },
      { status: "completed_with_errors", docsIndexed: 7, finishedAt: successAt },
      { status: "failed", docsIndexed: 0 },
      { status: "not_started" },
      { status: "in_progress", docsIndexed: 3 },
    ]);
    const [row] = pairRows(group(await list({}), "web"));
    expect(row).toMatchObject({
      cc_pair_id: id,
      in_progress: true,
      last_status: "in_progress",
      last_finished_status: "failed",
      last_success: "2024-03-01T08:20:30.456Z",
      latest_index_attempt_docs_indexed: 3,
      in_repeated_error_state: false,
    });
  });

  it("reports not_started as the last status without being in progress", async () => {
    const id = await createTestPair(app.db, { name: "Queued" });
    await insertIndexAttempts(app.db, id, [{ status: "canceled" }, { status: "not_started" }]);
    const [row] = pairRows(group(await list({}), "web"));
    expect(row).toMatchObject({ in_progress: false, last_status: "not_started", last_finished_status: "canceled", last_success: null });
  });

  it.each([
    ["five failures", ["failed", "failed", "failed", "failed", "failed"], true],
    ["a success, then five failures", ["success", "failed", "failed", "failed", "failed", "failed"], true],
    ["four failures", ["failed", "failed", "failed", "failed"], false],
    ["five failures cleared by a success", ["failed", "failed", "failed", "failed", "failed", "success"], false],
    ["five failures, then one in progress", ["failed", "failed", "failed", "failed", "failed", "in_progress"], false],
    ["a canceled attempt among the last five", ["failed", "failed", "canceled", "failed", "failed"], false],
  ] as const)("sets in_repeated_error_state after %s: %s", async (_name, statuses, expected) => {
    const id = await createTestPair(app.db, { name: "Flaky" });
    await insertIndexAttempts(app.db, id, statuses.map((status) => ({ status })));
    expect(pairRows(group(await list({}), "web"))[0]?.in_repeated_error_state).toBe(expected);
  });

  it("counts a pair's indexed documents from the stored count, a shared document in both pairs", async () => {
    const first = await createTestPair(app.db, { name: "First" });
    const second = await createTestPair(app.db, { name: "Second" });
    await seedDocuments(first, 3, 2);
    await ingestOverApi(app, { id: `pair-${first}-doc-0`, ccPairId: second });
    await indexQueuedDocuments(app.db);
    const web = group(await list({}), "web");
    expect(pairRows(web).map((row) => [row.cc_pair_id, row.docs_indexed])).toEqual([
      [second, 1],
      [first, 3],
    ]);
    expect(web.summary.total_docs_indexed).toBe(4);
  });

  it("counts only documents whose indexing has completed", async () => {
    const id = await createTestPair(app.db, { name: "Pending" });
    await ingestOverApi(app, { id: "not-yet-indexed", ccPairId: id });
    expect(pairRows(group(await list({}), "web"))[0]?.docs_indexed).toBe(0);
    await indexQueuedDocuments(app.db);
    expect(pairRows(group(await list({}), "web"))[0]?.docs_indexed).toBe(1);
  });

  it("never shows a pair being deleted", async () => {
    const kept = await createTestPair(app.db, { name: "Kept" });
    const deleted = await createTestPair(app.db, { name: "Deleted" });
    const response = await app.request("DELETE", `/api/manage/admin/cc-pair/${deleted}`);
    expect(response.status).toBe(202);
    expect(ids(group(await list({ get_all_connectors: true }), "web"))).toEqual([kept]);
  });
});

describe("filters", () => {
  let file: { publicPair: number; privatePair: number; syncPair: number };
  let web: { big: number; small: number };

  beforeEach(async () => {
    file = {
      publicPair: await createTestPair(app.db, { name: "Team Handbook", source: "file", access: "public" }),
      privatePair: await createTestPair(app.db, { name: "HR handbook", source: "file", access: "private" }),
      syncPair: await createTestPair(app.db, { name: "Contracts", source: "file", access: "sync" }),
    };
    web = {
      big: await createTestPair(app.db, { name: "Company wiki", source: "web", access: "public" }),
      small: await createTestPair(app.db, { name: "Blog", source: "web", access: "private" }),
    };
    await seedDocuments(web.big, 3);
    await seedDocuments(web.small, 1);
    await seedDocuments(file.privatePair, 3);
    await forgetIndexingHistory(app.db);
    await insertIndexAttempts(app.db, file.publicPair, [{ status: "failed" }, { status: "success" }]);
    await insertIndexAttempts(app.db, file.privatePair, [{ status: "success" }, { status: "failed" }]);
    await insertIndexAttempts(app.db, web.big, [{ status: "in_progress" }]);
  });

  const listedIds = async (body: unknown) => (await list(body)).map((entry) => [entry.source, ids(entry)]);

  it("does not filter with an empty body", async () => {
    expect(await listedIds({})).toEqual([
      ["file", [file.syncPair, file.privatePair, file.publicPair]],
      ["web", [web.small, web.big]],
    ]);
  });

  it("keeps only pairs of the hidden `source` field", async () => {
    expect(await listedIds({ source: "web" })).toEqual([["web", [web.small, web.big]]]);
    expect(await listedIds({ source: "slack" })).toEqual([]);
  });

  it("keeps the access types listed", async () => {
    expect(await listedIds({ access_type_filters: ["public"] })).toEqual([
      ["file", [file.publicPair]],
      ["web", [web.big]],
    ]);
    expect(await listedIds({ access_type_filters: ["private", "sync"] })).toEqual([
      ["file", [file.syncPair, file.privatePair]],
      ["web", [web.small]],
    ]);
  });

  it("matches the status of the latest attempt and drops pairs without attempts", async () => {
    expect(await listedIds({ last_status_filters: ["failed"] })).toEqual([["file", [file.privatePair]]]);
    expect(await listedIds({ last_status_filters: ["success", "in_progress"] })).toEqual([
      ["file", [file.publicPair]],
      ["web", [web.big]],
    ]);
    expect(await listedIds({ last_status_filters: ["canceled"] })).toEqual([]);
  });

  it("compares docs_indexed with >, < and = when both operator and value are given", async () => {
    expect(await listedIds({ docs_count_operator: ">", docs_count_value: 1 })).toEqual([
      ["file", [file.privatePair]],
      ["web", [web.big]],
    ]);
    expect(await listedIds({ docs_count_operator: "<", docs_count_value: 1 })).toEqual([
      ["file", [file.syncPair, file.publicPair]],
    ]);
    expect(await listedIds({ docs_count_operator: "=", docs_count_value: 1 })).toEqual([["web", [web.small]]]);
    expect(await listedIds({ docs_count_operator: "=", docs_count_value: "3" })).toEqual([
      ["file", [file.privatePair]],
      ["web", [web.big]],
    ]);
  });

  it("ignores the document-count filter when operator or value is missing", async () => {
    const everything = await listedIds({});
    expect(await listedIds({ docs_count_operator: ">" })).toEqual(everything);
    expect(await listedIds({ docs_count_value: 100 })).toEqual(everything);
    expect(await listedIds({ docs_count_operator: null, docs_count_value: 100 })).toEqual(everything);
  });

  it("matches name_filter as a case-insensitive substring", async () => {
    expect(await listedIds({ name_filter: "HANDBOOK" })).toEqual([["file", [file.privatePair, file.publicPair]]]);
    expect(await listedIds({ name_filter: "wiki" })).toEqual([["web", [web.big]]]);
    expect(await listedIds({ name_filter: "nothing like this" })).toEqual([]);
    expect(await listedIds({ name_filter: "%" })).toEqual([]);
    expect(await listedIds({ name_filter: null })).toEqual(await listedIds({}));
  });

  it("ANDs the filters together", async () => {
    expect(await listedIds({ name_filter: "handbook", access_type_filters: ["private"] })).toEqual([
      ["file", [file.privatePair]],
    ]);
    expect(
      await listedIds({
        source: "file",
        access_type_filters: ["public", "private"],
        last_status_filters: ["success"],
        docs_count_operator: "<",
        docs_count_value: 5,
        name_filter: "book",
      }),
    ).toEqual([["file", [file.publicPair]]]);
    expect(await listedIds({ source: "web", last_status_filters: ["failed"] })).toEqual([]);
  });

  it("computes the summary over the filtered rows", async () => {
    await setPairStatus(app.db, web.big, "ACTIVE");
    const unfiltered = group(await list({}), "web");
    expect(unfiltered.summary).toEqual({ total_connectors: 2, active_connectors: 1, public_connectors: 1, total_docs_indexed: 4 });
    const filtered = group(await list({ access_type_filters: ["private"] }), "web");
    expect(filtered.summary).toEqual({ total_connectors: 1, active_connectors: 0, public_connectors: 0, total_docs_indexed: 1 });
  });
});

describe("paging", () => {
  it("pages each source by 10: the worked example of the issue", async () => {
    const files = await seedPairs(23, "file");
    const webs = await seedPairs(2, "web");
    const third = await list({ source_to_page: { file: 3 } });
    expect(third.map((entry) => [entry.source, entry.current_page, entry.total_pages, entry.indexing_statuses.length])).toEqual([
      ["file", 3, 3, 3],
      ["web", 1, 1, 2],
    ]);
    // Rows by id descending: page 3 holds the three oldest pairs.
    expect(ids(group(third, "file"))).toEqual([files[2], files[1], files[0]]);
    expect(ids(group(third, "web"))).toEqual([webs[1], webs[0]]);

    const fourth = await list({ source_to_page: { file: 4 } });
    expect(fourth.map((entry) => entry.source)).toEqual(["web"]);
  });

  it("puts a source left out of source_to_page on page 1, and pages sources independently", async () => {
    const files = await seedPairs(12, "file");
    const webs = await seedPairs(15, "web");
    const listing = await list({ source_to_page: { web: 2 } });
    expect(ids(group(listing, "file"))).toEqual(files.slice(2).reverse());
    expect(group(listing, "file")).toMatchObject({ current_page: 1, total_pages: 2 });
    expect(ids(group(listing, "web"))).toEqual(webs.slice(0, 5).reverse());
    expect(group(listing, "web")).toMatchObject({ current_page: 2, total_pages: 2 });
  });

  it("handles the edges: exactly 10 rows is one page; the 11th row starts page 2", async () => {
    const files = await seedPairs(10, "file");
    expect(group(await list({}), "file")).toMatchObject({ total_pages: 1 });
    expect(await list({ source_to_page: { file: 2 } })).toEqual([]);

    const eleventh = await createTestPair(app.db, { name: "file 10", source: "file" });
    expect(group(await list({}), "file")).toMatchObject({ total_pages: 2 });
    expect(ids(group(await list({ source_to_page: { file: 2 } }), "file"))).toEqual([files[0]]);
    expect(ids(group(await list({}), "file"))[0]).toBe(eleventh);
  });

  it("keeps summaries over all filtered rows of the source, not just the page", async () => {
    const files = await seedPairs(23, "file");
    for (const id of files.slice(0, 5)) await setPairStatus(app.db, id, "ACTIVE");
    await seedDocuments(files[0] ?? 0, 2);
    const summary = group(await list({ source_to_page: { file: 3 } }), "file").summary;
    expect(summary).toEqual({ total_connectors: 23, active_connectors: 5, public_connectors: 23, total_docs_indexed: 2 });
  });

  it("returns every row on one page with get_all_connectors, still reporting total_pages", async () => {
    const files = await seedPairs(23, "file");
    const all = group(await list({ get_all_connectors: true }), "file");
    expect(all).toMatchObject({ current_page: 1, total_pages: 3 });
    expect(ids(all)).toEqual([...files].reverse());
    const echoed = group(await list({ get_all_connectors: true, source_to_page: { file: 2 } }), "file");
    expect(echoed).toMatchObject({ current_page: 2, total_pages: 3 });
    expect(echoed.indexing_statuses).toHaveLength(23);
  });

  it("accepts a page number sent as a string, as pydantic's lax mode does", async () => {
    await seedPairs(11, "file");
    expect(group(await list({ source_to_page: { file: "2" } }), "file")).toMatchObject({ current_page: 2 });
  });
});

describe("ordering", () => {
  it("orders sources by their string value and rows by cc_pair_id descending, federated rows last", async () => {
    // The enum declares google_drive before gmail: the order must come from the strings.
    const created: Record<string, number> = {};
    for (const source of ["web", "google_drive", "slack", "gmail", "file"] as const) {
      created[source] = await createTestPair(app.db, { name: source, source });
    }
    const laterSlack = await createTestPair(app.db, { name: "slack 2", source: "slack" });
    const federated = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack" });
    const listing = await list({});
    expect(listing.map((entry) => entry.source)).toEqual(["file", "gmail", "google_drive", "slack", "web"]);
    expect(ids(group(listing, "slack"))).toEqual([laterSlack, created.slack, `federated:${federated.id}`]);
  });
});

describe("federated connectors", () => {
  it("are listed under the plain source with their id, source and title-cased or given name", async () => {
    const unnamed = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack" });
    const named = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack", name: "Team chat" });
    const slack = group(await list({}), "slack");
    expect(slack.indexing_statuses).toEqual([
      { id: unnamed.id, source: "federated_slack", name: "Federated Slack" },
      { id: named.id, source: "federated_slack", name: "Team chat" },
    ] satisfies FederatedConnectorStatus[]);
    expect(slack.summary).toEqual({ total_connectors: 2, active_connectors: 0, public_connectors: 0, total_docs_indexed: 0 });
  });

  it("count in total_connectors and total_pages, after the pairs of their source", async () => {
    const pairs = await seedPairs(10, "slack");
    for (const id of pairs) await setPairStatus(app.db, id, "ACTIVE");
    const federated = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack" });
    const first = group(await list({}), "slack");
    expect(first.summary).toEqual({ total_connectors: 11, active_connectors: 10, public_connectors: 10, total_docs_indexed: 0 });
    expect(first.total_pages).toBe(2);
    expect(ids(first)).toEqual([...pairs].reverse());
    expect(ids(group(await list({ source_to_page: { slack: 2 } }), "slack"))).toEqual([`federated:${federated.id}`]);
  });

  it("are filtered by name_filter only", async () => {
    const federated = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack" });
    const row = `federated:${federated.id}`;
    expect(ids(group(await list({ name_filter: "SLACK" }), "slack"))).toEqual([row]);
    expect(await list({ name_filter: "nope" })).toEqual([]);
    for (const body of [
      { access_type_filters: ["private"] },
      { last_status_filters: ["success"] },
      { docs_count_operator: ">", docs_count_value: 10 },
      { source: "web" },
      { secondary_index: true },
    ]) {
      expect(ids(group(await list(body), "slack"))).toEqual([row]);
    }
  });

  it("disappear once deleted", async () => {
    const federated = await createFederatedConnector({ db: app.db, principal: OPERATOR_PRINCIPAL, source: "federated_slack" });
    const response = await app.request("DELETE", `/api/manage/admin/federated-connector/${federated.id}`);
    expect(response.status).toBe(200);
    expect(await list({})).toEqual([]);
  });
});

describe("scoped keys", () => {
  it("see their pairs as editable, public pairs as read-only, and no other pair", async () => {
    const mine = await createTestPair(app.db, { name: "Mine", source: "file", access: "private" });
    const publicPair = await createTestPair(app.db, { name: "Everyone's", source: "file", access: "public" });
    const othersPrivate = await createTestPair(app.db, { name: "Theirs", source: "file", access: "private" });
    const othersSync = await createTestPair(app.db, { name: "Synced", source: "web", access: "sync" });
    const mineToo = await createTestPair(app.db, { name: "Mine too", source: "web", access: "sync" });
    await seedDocuments(othersPrivate, 2);

    const key = await app.createKey("curator", [mine, mineToo]);
    const listing = await list({}, key);
    const editable = listing.flatMap((entry) => pairRows(entry).map((row) => [row.cc_pair_id, row.is_editable]));
    expect(editable).toEqual([
      [publicPair, false],
      [mine, true],
      [mineToo, true],
    ]);
    // Summaries count only what the key may see.
    expect(group(listing, "file").summary).toMatchObject({ total_connectors: 2, total_docs_indexed: 0 });

    const adminRows = (await list({})).flatMap((entry) => pairRows(entry));
    expect(adminRows.map((row) => row.cc_pair_id).sort()).toEqual([mine, publicPair, othersPrivate, othersSync, mineToo].sort());
    expect(adminRows.every((row) => row.is_editable)).toBe(true);
  });

  it("an unscoped curator may edit every pair", async () => {
    await createTestPair(app.db, { name: "Any", access: "private" });
    const rows = pairRows(group(await list({}, await app.createKey("curator")), "web"));
    expect(rows.map((row) => row.is_editable)).toEqual([true]);
  });
});

describe("secondary_index", () => {
  it("reads no attempts while no rebuild runs: attempt fields null/false, status filters keep no pair", async () => {
    const id = await createTestPair(app.db, { name: "Indexed" });
    await seedDocuments(id, 2);
    await insertIndexAttempts(app.db, id, [
      { status: "failed" },
      { status: "failed" },
      { status: "failed" },
      { status: "failed" },
      { status: "success", docsIndexed: 2 },
      { status: "in_progress" },
    ]);
    const [row] = pairRows(group(await list({ secondary_index: true }), "web"));
    expect(row).toMatchObject({
      cc_pair_id: id,
      docs_indexed: 2,
      in_progress: false,
      in_repeated_error_state: false,
      last_status: null,
      last_finished_status: null,
      last_success: null,
      latest_index_attempt_docs_indexed: null,
    });
    expect(await list({ secondary_index: true, last_status_filters: ["in_progress"] })).toEqual([]);
    expect(pairRows(group(await list({ secondary_index: false }), "web"))[0]).toMatchObject({ last_status: "in_progress" });
  });
});
