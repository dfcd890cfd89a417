import { indexDocuments } from "@svc/core";
import { createTestPair, testSearchIndex } from "@svc/core/testing";
import { DocMinimalInfoListSchema, DocumentDetailSchema, encodeDocumentCursor, type DocMinimalInfoList } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { ERROR_DETAIL, useTestApp } from "./app";
import { indexNow, ingestOverApi, uploadTestImage } from "./factories";

const app = useTestApp();
const INGESTION = "/api/svc-api/ingestion";
const CONNECTOR_DOCS = "/api/svc-api/connector-docs";

const documentPath = (id: string) => `${INGESTION}/${encodeURIComponent(id)}`;

/** Runs the indexing job of the document's current version, as the worker would. */

async function json(response: Response, status: number): Promise<unknown> {
  expect(response.status).toBe(status);
  return response.json();
}

async function docsIndexed(ccPairId: number): Promise<number> {
  return (await app.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId }, select: { docsIndexed: true } })).docsIndexed;
}

/** Pairs whose stored docs_indexed differs from a count of their indexed links. */
async function countMismatches(): Promise<unknown[]> {
  return app.db.$queryRaw`
    SELECT p.id FROM connector_credential_pair p LEFT JOIN document_by_cc_pair l ON l.cc_pair_id = p.id
    GROUP BY p.id HAVING p.docs_indexed <> count(l.document_id) FILTER (WHERE l.has_been_indexed)`;
}

/** Every row anywhere that still refers to the document. */
async function remnants(id: string) {
  const [documents, sections, chunks, links] = await Promise.all([
    app.db.document.count({ where: { id } }),
    app.db.documentSection.count({ where: { documentId: id } }),
    app.db.documentChunk.count({ where: { documentId: id } }),
    app.db.documentByCcPair.count({ where: { documentId: id } }),
  ]);
  return { documents, sections, chunks, links };
}

/** The URL of a `Link: <…>; rel="next"` header, as a path under the app; null when there is none. */
function nextLink(response: Response): string | null {
  const match = /^<([^>]+)>; rel="next"$/.exec(response.headers.get("link") ?? "");
  if (!match?.[1]) return null;
  const url = new URL(match[1]);
  return `${url.pathname}${url.search}`;
}

/** Follows the `Link` header from the first page to the last; every page checked against the schema. */
async function walk(path: string, limit: number, key?: string): Promise<{ ids: string[]; pages: DocMinimalInfoList[] }> {
  const pages: DocMinimalInfoList[] = [];
  let next: string | null = `${path}?limit=${limit}`;
  while (next !== null && pages.length < 1000) {
    const response = await app.request("GET", next, { key });
    const page = DocMinimalInfoListSchema.parse(await json(response, 200));
    for (const row of page) expect(Object.keys(row).sort()).toEqual(["document_id", "link", "semantic_id"]);
    expect(page.length).toBeLessThanOrEqual(limit);
    pages.push(page);
    next = nextLink(response);
  }
  return { ids: pages.flat().map((document) => document.document_id), pages };
}

/** A document written directly, as a connector (not the ingestion API) would write it. */
async function createConnectorDocument(id: string, ccPairId: number): Promise<void> {
  await app.db.document.create({
    data: {
      id,
      semanticIdentifier: `Connector ${id}`,
      source: "web",
      docUpdatedAt: new Date(),
      fromIngestionApi: false,
      sections: { create: [{ position: 0, kind: "text", text: "from a connector" }] },
      pairs: { create: [{ ccPairId }] },
    },
  });
}

describe("GET /api/svc-api/ingestion/{document_id}", () => {
  it("returns the document as sent, then its indexing status once indexed", async () => {
    const file = await uploadTestImage(app, "a.png");
    const pair = await createTestPair(app.db, { name: "Detail pair" });
    const owner = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };
    await ingestOverApi(app, {
      id: "detail-1",
      ccPairId: pair,
      fields: {
        title: "The title",
        source: "web",
        semantic_identifier: "Detail one",
        metadata: { team: "docs", tags: ["a", "b"] },
        doc_updated_at: "2024-05-01T12:00:00+02:00",
        sections: [
          { text: "First part.", link: "https://example.com/1" },
          { text: "Placeholder image", image_file_id: "not-uploaded" },
          { image_file_id: file.fileId, text: "A caption" },
        ],
        primary_owners: [owner],
        secondary_owners: null,
        external_access: { external_user_emails: ["ada@example.com"], external_user_group_ids: ["g1"], is_public: false },
        additional_info: { any: ["thing", 1] },
        doc_metadata: { hierarchy: { path: ["x"] } },
        from_ingestion_api: false,
      },
    });

    const queued = DocumentDetailSchema.strict().parse(await json(await app.request("GET", documentPath("detail-1")), 200));
    expect(queued).toEqual({
      id: "detail-1",
      semantic_identifier: "Detail one",
      title: "The title",
      source: "web",
      metadata: { team: "docs", tags: ["a", "b"] },
      doc_updated_at: "2024-05-01T10:00:00.000Z",
      sections: [
        { text: "First part.", link: "https://example.com/1", image_file_id: null },
        // A text section's image_file_id is kept only when it names an uploaded file (docs/decisions.md).
        { text: "Placeholder image", link: null, image_file_id: null },
        { text: "A caption", link: null, image_file_id: file.fileId },
      ],
      primary_owners: [owner],
      secondary_owners: null,
      external_access: { external_user_emails: ["ada@example.com"], external_user_group_ids: ["g1"], is_public: false },
      additional_info: { any: ["thing", 1] },
      doc_metadata: { hierarchy: { path: ["x"] } },
      from_ingestion_api: true,
      indexing_status: "queued",
      current_version: 1,
      indexed_version: null,
      chunk_count: null,
      indexed_at: null,
      last_error: null,
      attempts: 0,
      cc_pair_ids: [pair],
    });

    await indexNow(app, "detail-1");
    await ingestOverApi(app, { id: "detail-1", title: "Title of detail-1" }); // the same document, now also in the default pair: version 2, queued again
    const chunks = await app.db.documentChunk.count({ where: { documentId: "detail-1" } });
    expect(await json(await app.request("GET", documentPath("detail-1")), 200)).toMatchObject({
      semantic_identifier: "Title of detail-1",
      external_access: null,
      primary_owners: null,
      additional_info: null,
      doc_metadata: null,
      indexing_status: "queued",
      current_version: 2,
      indexed_version: 1,
      chunk_count: chunks,
      indexed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) as unknown,
      cc_pair_ids: [1, pair],
    });
    await indexNow(app, "detail-1");
    expect(await json(await app.request("GET", documentPath("detail-1")), 200)).toMatchObject({
      indexing_status: "indexed",
      current_version: 2,
      indexed_version: 2,
      chunk_count: await app.db.documentChunk.count({ where: { documentId: "detail-1" } }),
    });
  });

  it("finds ids with slashes, spaces, percent signs and unicode, sent URL-encoded", async () => {
    const ids = ["a/b/c", "with space", "100%", "%2F literally", "ü 日本 😀", "q?x=1&y=2#frag", "+plus+", "trailing/"];
    for (const id of ids) await ingestOverApi(app, { id, title: `Title of ${id}` });
    for (const id of ids) {
      expect(await json(await app.request("GET", documentPath(id)), 200)).toMatchObject({ id, semantic_identifier: `Title of ${id}` });
    }
    // A `/` sent as %2F stays inside the one path segment.
    expect(await json(await app.request("GET", `${INGESTION}/a%2Fb%2Fc`), 200)).toMatchObject({ id: "a/b/c" });
  });

  it("answers 404 with a detail for an unknown id, and 400 for a malformed escape", async () => {
    expect(await json(await app.request("GET", documentPath("no-such-document")), 404)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("GET", `${INGESTION}/bad%E0%A4%escape`), 400)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("GET", `${INGESTION}/%ZZ`), 400)).toEqual(ERROR_DETAIL);
  });
});

describe("DELETE /api/svc-api/ingestion/{document_id}", () => {
  it("removes the document, its sections, chunks and links, and the indexed links from docs_indexed", async () => {
    const first = await createTestPair(app.db, { name: "Delete A" });
    const second = await createTestPair(app.db, { name: "Delete B" });
    await ingestOverApi(app, { id: "doomed/1", ccPairId: first });
    await ingestOverApi(app, { id: "doomed/1", ccPairId: second });
    await ingestOverApi(app, { id: "kept", ccPairId: first });
    await indexNow(app, "doomed/1");
    await indexNow(app, "kept");
    await ingestOverApi(app, { id: "doomed/1", ccPairId: first }); // version 2, queued: its links stay indexed
    expect([await docsIndexed(first), await docsIndexed(second)]).toEqual([2, 1]);
    expect((await remnants("doomed/1")).chunks).toBeGreaterThan(0);

    expect(await json(await app.request("DELETE", documentPath("doomed/1")), 200)).toBeNull();
    expect(await remnants("doomed/1")).toEqual({ documents: 0, sections: 0, chunks: 0, links: 0 });
    expect([await docsIndexed(first), await docsIndexed(second)]).toEqual([1, 0]);
    expect(await countMismatches()).toEqual([]);
    expect(await json(await app.request("GET", documentPath("doomed/1")), 404)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("DELETE", documentPath("doomed/1")), 404)).toEqual(ERROR_DETAIL);
    expect((await remnants("kept")).chunks).toBeGreaterThan(0);

    // Its pending indexing jobs run later and find nothing to do.
    await indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId: "doomed/1", version: 1 }, { documentId: "doomed/1", version: 2 }] });
    expect(await remnants("doomed/1")).toEqual({ documents: 0, sections: 0, chunks: 0, links: 0 });
    expect(await countMismatches()).toEqual([]);
  });

  it("leaves docs_indexed alone for links not indexed yet, and lets the id be ingested again", async () => {
    const pair = await createTestPair(app.db, { name: "Delete queued" });
    await ingestOverApi(app, { id: "queued-doc", ccPairId: pair });
    expect(await json(await app.request("DELETE", documentPath("queued-doc")), 200)).toBeNull();
    expect(await docsIndexed(pair)).toBe(0);
    await ingestOverApi(app, { id: "queued-doc", ccPairId: pair });
    await indexNow(app, "queued-doc");
    expect(await json(await app.request("GET", documentPath("queued-doc")), 200)).toMatchObject({ current_version: 1, indexing_status: "indexed" });
    expect(await docsIndexed(pair)).toBe(1);
  });

  it("keeps counts exact when deletion and indexing race", async () => {
    const pair = await createTestPair(app.db, { name: "Race" });
    for (let round = 0; round < 10; round += 1) {
      const id = `race-${round}`;
      await ingestOverApi(app, { id, ccPairId: pair });
      const deletion = app.request("DELETE", documentPath(id));
      await Promise.all([indexNow(app, id).catch(() => undefined), deletion]);
      expect((await deletion).status).toBe(200);
      expect(await remnants(id)).toEqual({ documents: 0, sections: 0, chunks: 0, links: 0 });
    }
    expect(await docsIndexed(pair)).toBe(0);
    expect(await countMismatches()).toEqual([]);
  });

  it("refuses with 400 a document not created through the ingestion API", async () => {
    const pair = await createTestPair(app.db, { name: "Connector pair" });
    await createConnectorDocument("from-connector", pair);
    expect(await json(await app.request("DELETE", documentPath("from-connector")), 400)).toEqual(ERROR_DETAIL);
    expect(await remnants("from-connector")).toEqual({ documents: 1, sections: 1, chunks: 0, links: 1 });
    expect(await json(await app.request("GET", documentPath("from-connector")), 200)).toMatchObject({ from_ingestion_api: false });
  });
});

describe("document listings", () => {
  it("walk every document exactly once, in id order, whatever the page size", async () => {
    const pair = await createTestPair(app.db, { name: "Paging" });
    const ids = Array.from({ length: 23 }, (_, index) => `page/${String(index).padStart(2, "0")}`);
    ids.push("page/ü", "page/ space", "page/%", "page/😀");
    for (const id of ids) await ingestOverApi(app, { id, title: `Title of ${id}`, ccPairId: pair });
    await createConnectorDocument("page/connector", pair);
    const pairIds = (
      await app.db.$queryRaw<{ id: string }[]>`
        SELECT document_id AS id FROM document_by_cc_pair WHERE cc_pair_id = ${pair} ORDER BY document_id`
    ).map((row) => row.id);
    expect(pairIds).toHaveLength(ids.length + 1);

    for (const limit of [1, 7, 27, 28, 1000]) {
      const { ids: walked, pages } = await walk(`${CONNECTOR_DOCS}/${pair}`, limit);
      expect(walked).toEqual(pairIds);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(pairIds.length / limit)));
    }
    const { pages } = await walk(`${CONNECTOR_DOCS}/${pair}`, 1000);
    expect(pages[0]?.find((document) => document.document_id === "page/00")).toEqual({
      document_id: "page/00",
      semantic_id: "Title of page/00",
      link: "https://example.com/page/00",
    });

    // The ingestion listing: every document from the ingestion API (of every pair), none other.
    const ingested = (
      await app.db.$queryRaw<{ id: string }[]>`SELECT id FROM document WHERE from_ingestion_api ORDER BY id`
    ).map((row) => row.id);
    for (const limit of [3, 100]) {
      const { ids: walked } = await walk(INGESTION, limit);
      expect(walked).toEqual(ingested);
      expect(new Set(walked).size).toBe(walked.length);
    }
    expect(ingested).toEqual(expect.arrayContaining(ids));
    expect(ingested).not.toContain("page/connector");
    // Without limit: the whole list in one array, no Link header.
    const whole = await app.request("GET", INGESTION);
    expect(whole.headers.get("link")).toBeNull();
    expect(DocMinimalInfoListSchema.parse(await json(whole, 200)).map((row) => row.document_id)).toEqual(ingested);
  });

  it("start after the cursor's id, and end without a Link header", async () => {
    const pair = await createTestPair(app.db, { name: "Cursor" });
    for (const id of ["c/1", "c/2", "c/3"]) await ingestOverApi(app, { id, ccPairId: pair });
    const first = await app.request("GET", `${CONNECTOR_DOCS}/${pair}?limit=2`);
    expect(await json(first, 200)).toEqual([expect.objectContaining({ document_id: "c/1" }), expect.objectContaining({ document_id: "c/2" })]);
    expect(nextLink(first)).toBe(`${CONNECTOR_DOCS}/${pair}?limit=2&cursor=${encodeDocumentCursor("c/2")}`);
    const second = await app.request("GET", `${CONNECTOR_DOCS}/${pair}?limit=2&cursor=${encodeDocumentCursor("c/1")}`);
    expect(await json(second, 200)).toMatchObject([{ document_id: "c/2" }, { document_id: "c/3" }]);
    expect(second.headers.get("link")).toBeNull();
    // An id past the last one: an empty list.
    expect(await json(await app.request("GET", `${CONNECTOR_DOCS}/${pair}?cursor=${encodeDocumentCursor("c/9")}`), 200)).toEqual([]);
  });

  it("answer 422 at the query parameter for a bad limit or cursor", async () => {
    for (const path of [INGESTION, `${CONNECTOR_DOCS}/1`]) {
      for (const [query, loc, type] of [
        ["limit=0", ["query", "limit"], "greater_than_equal"],
        ["limit=1001", ["query", "limit"], "less_than_equal"],
        ["limit=ten", ["query", "limit"], "int_parsing"],
        ["cursor=not*base64", ["query", "cursor"], "value_error"],
        ["cursor=YR", ["query", "cursor"], "value_error"],
      ] as const) {
        expect(await json(await app.request("GET", `${path}?${query}`), 422)).toEqual({
          detail: [expect.objectContaining({ loc, type })],
        });
      }
    }
  });

  it("answer 404 for an unknown pair and 422 for a pair id that is no integer", async () => {
    for (const id of [424242, 0, -1]) {
      expect(await json(await app.request("GET", `${CONNECTOR_DOCS}/${id}`), 404)).toEqual(ERROR_DETAIL);
    }
    // Pair ids are PostgreSQL int4: beyond it, the bound (decisions.md, "Every error is JSON").
    expect(await json(await app.request("GET", `${CONNECTOR_DOCS}/99999999999`), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["path", "cc_pair_id"], type: "less_than_equal" })],
    });
    expect(await json(await app.request("GET", `${CONNECTOR_DOCS}/abc`), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["path", "cc_pair_id"], type: "int_parsing" })],
    });
  });
});

describe("authentication and scope", () => {
  it("needs a key (401) with the admin or curator role (403)", async () => {
    await ingestOverApi(app, { id: "auth-doc" });
    const basic = await app.createKey("basic");
    for (const [method, path] of [
      ["GET", documentPath("auth-doc")],
      ["DELETE", documentPath("auth-doc")],
      ["GET", INGESTION],
      ["GET", `${CONNECTOR_DOCS}/1`],
    ] as const) {
      const unauthenticated = await app.request(method, path, { key: null });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers.get("www-authenticate")).toBe("Bearer");
      expect(await json(await app.request(method, path, { key: basic }), 403)).toEqual(ERROR_DETAIL);
    }
    expect(await remnants("auth-doc")).toMatchObject({ documents: 1 });
    const curator = await app.createKey("curator");
    expect((await app.request("GET", documentPath("auth-doc"), { key: curator })).status).toBe(200);
    expect((await app.request("DELETE", documentPath("auth-doc"), { key: curator })).status).toBe(200);
  });

  it("shows a scoped key the documents of its pairs and public ones; it deletes only those all of whose pairs it may edit", async () => {
    const mine = await createTestPair(app.db, { name: "Scoped mine", access: "private" });
    const publicPair = await createTestPair(app.db, { name: "Scoped public", access: "public" });
    const theirs = await createTestPair(app.db, { name: "Scoped theirs", access: "private" });
    await ingestOverApi(app, { id: "scope/mine", ccPairId: mine });
    await ingestOverApi(app, { id: "scope/public", ccPairId: publicPair });
    await ingestOverApi(app, { id: "scope/theirs", ccPairId: theirs });
    await ingestOverApi(app, { id: "scope/shared", ccPairId: mine });
    await ingestOverApi(app, { id: "scope/shared", ccPairId: theirs });
    const key = await app.createKey("curator", [mine]);

    for (const id of ["scope/mine", "scope/public", "scope/shared"]) {
      expect((await app.request("GET", documentPath(id), { key })).status).toBe(200);
    }
    expect(await json(await app.request("GET", documentPath("scope/theirs"), { key }), 404)).toEqual(ERROR_DETAIL);

    const listed = (await walk(INGESTION, 1000, key)).ids;
    expect(listed).toEqual(expect.arrayContaining(["scope/mine", "scope/public", "scope/shared"]));
    expect(listed).not.toContain("scope/theirs");
    expect((await walk(`${CONNECTOR_DOCS}/${mine}`, 10, key)).ids).toEqual(["scope/mine", "scope/shared"]);
    expect((await walk(`${CONNECTOR_DOCS}/${publicPair}`, 10, key)).ids).toEqual(["scope/public"]);
    expect(await json(await app.request("GET", `${CONNECTOR_DOCS}/${theirs}`, { key }), 404)).toEqual(ERROR_DETAIL);

    expect(await json(await app.request("DELETE", documentPath("scope/theirs"), { key }), 404)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("DELETE", documentPath("scope/public"), { key }), 403)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("DELETE", documentPath("scope/shared"), { key }), 403)).toEqual(ERROR_DETAIL);
    expect(await json(await app.request("DELETE", documentPath("scope/mine"), { key }), 200)).toBeNull();
    for (const id of ["scope/public", "scope/shared", "scope/theirs"]) expect((await remnants(id)).documents).toBe(1);
    expect((await remnants("scope/mine")).documents).toBe(0);
  });
});
