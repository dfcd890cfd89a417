// decisions.md "Scoped keys": a key scoped to pair A never changes and never sees what belongs to pair
// B only. Two private pairs, a curator key scoped to each; every path a scoped key can reach, over
// REST and the console's tRPC, is tried against B's documents, and B's stored rows are compared
// byte for byte before and after.
import { DocMinimalInfoListSchema, DocumentDetailSchema } from "@svc/schema";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTestApp } from "./app";
import { createTestPair, testIngestionBody, type TestDocument } from "@svc/core/testing";
import { ingestAndIndexOverApi } from "./factories";
import { signedIn, type Caller } from "./trpc/console";

const app = useTestApp();
const INGESTION = "/api/svc-api/ingestion";
const CONNECTOR_DOCS = "/api/svc-api/connector-docs";
const SEARCH = "/api/svc-api/search";
const INDEXING_STATUS = "/api/manage/admin/connector/indexing-status";
const documentPath = (id: string) => `${INGESTION}/${encodeURIComponent(id)}`;

const pairs = { a: 0, b: 0 };
const keys = { a: "", b: "", scopedAdminA: "" };
let consoleA: Caller;
let consoleAdminA: Caller;

/** A document of the pair as this file writes them: its text holds the word the search probes look for. */
function scopedDocument(id: string, ccPairId: number): TestDocument {
  return { id, ccPairId, title: `Title of ${id}`, text: `zephyrine text of ${id}`, link: `https://example.com/${id}` };
}

/** Ingests the document into the pair with the key (the admin key unless one is given); the answer as it is. */
function ingest(id: string, ccPairId: number, key = app.adminKey): Promise<Response> {
  return app.ingest(testIngestionBody(scopedDocument(id, ccPairId)), key);
}

/**
 * Everything stored about pair B's documents, as text: the rows of the documents, their sections,
 * chunks and links, pair B's row (its counters) and their indexing jobs.
 */
async function pairBState(): Promise<string> {
  const [row] = await app.db.$queryRaw<{ state: string }[]>`
    WITH docs AS (SELECT document_id AS id FROM document_by_cc_pair WHERE cc_pair_id = ${pairs.b})
    SELECT jsonb_build_object(
      'documents', (SELECT jsonb_agg(to_jsonb(d) ORDER BY d.id) FROM document d WHERE d.id IN (SELECT id FROM docs)),
      'sections', (SELECT jsonb_agg(to_jsonb(s) ORDER BY s.document_id, s.position) FROM document_section s
        WHERE s.document_id IN (SELECT id FROM docs)),
      'chunks', (SELECT jsonb_agg(to_jsonb(c) ORDER BY c.document_id, c.generation_id, c.chunk_index) FROM document_chunk c
        WHERE c.document_id IN (SELECT id FROM docs)),
      'links', (SELECT jsonb_agg(to_jsonb(l) ORDER BY l.document_id, l.cc_pair_id) FROM document_by_cc_pair l
        WHERE l.document_id IN (SELECT id FROM docs)),
      'pair', (SELECT to_jsonb(p) FROM connector_credential_pair p WHERE p.id = ${pairs.b}),
      'jobs', (SELECT count(*) FROM pgboss.job WHERE name = 'index-document' AND data->>'documentId' IN (SELECT id FROM docs))
    )::text AS state`;
  if (!row) throw new Error("no state");
  return row.state;
}

/** The status and body of a response, to compare an answer with the one for a missing id. */
async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

/** The tRPC error a call fails with, its message with the id replaced so two ids can be compared. */
async function trpcFailure(call: Promise<unknown>, id: string): Promise<{ code: string; message: string }> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown as { code: string; message: string },
  );
  if (error === null) throw new Error("expected the call to fail");
  return { code: error.code, message: error.message.replaceAll(id, "<id>") };
}

beforeAll(async () => {
  pairs.a = await createTestPair(app.db, { name: "Pair A", access: "private" });
  pairs.b = await createTestPair(app.db, { name: "Pair B", access: "private" });
  keys.a = await app.createKey("curator", [pairs.a]);
  keys.b = await app.createKey("curator", [pairs.b]);
  keys.scopedAdminA = await app.createKey("admin", [pairs.a]);
  await ingestAndIndexOverApi(app, scopedDocument("a/own", pairs.a));
  await ingestAndIndexOverApi(app, scopedDocument("b/secret", pairs.b));
  await ingestAndIndexOverApi(app, scopedDocument("b/failed", pairs.b));
  await ingestAndIndexOverApi(app, scopedDocument("shared", pairs.b));
  await ingestAndIndexOverApi(app, scopedDocument("shared", pairs.a));
  await app.db.document.update({ where: { id: "b/failed" }, data: { indexingStatus: "failed", lastError: "boom" } });
  consoleA = (await signedIn(keys.a)).caller;
  consoleAdminA = (await signedIn(keys.scopedAdminA)).caller;
});

let before: string;
beforeEach(async () => {
  before = await pairBState();
});

async function expectPairBUnchanged(): Promise<void> {
  expect(await pairBState()).toBe(before);
}

describe("writes", () => {
  it("refuses a scoped key's upsert of an id linked to a pair outside its scope: 403, nothing changes", async () => {
    for (const id of ["b/secret", "shared"]) {
      const refused = await ingest(id, pairs.a, keys.a);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        detail: `This key cannot write document ${id}: it belongs to a connector outside the key's scope`,
      });
    }
    await expectPairBUnchanged();
  });

  it("refuses it inside a batch of concurrent writes, and commits the others", async () => {
    const responses = await Promise.all([
      ingest("b/secret", pairs.a, keys.a),
      ingest("a/batch-1", pairs.a, keys.a),
      ingest("a/batch-2", pairs.a, keys.a),
    ]);
    expect(responses.map((response) => response.status)).toEqual([403, 200, 200]);
    expect(await app.db.document.count({ where: { id: { in: ["a/batch-1", "a/batch-2"] } } })).toBe(2);
    await expectPairBUnchanged();
  });

  it("lets the key of the pair update its document, and an unscoped admin key any", async () => {
    const own = await ingest("b/secret", pairs.b, keys.b);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ document_id: "b/secret", already_existed: true });
    const admin = await ingest("a/own", pairs.b);
    expect(await admin.json()).toEqual({ document_id: "a/own", already_existed: true });
    expect((await app.db.documentByCcPair.findMany({ where: { documentId: "a/own" }, orderBy: { ccPairId: "asc" } })).map((l) => l.ccPairId)).toEqual([
      pairs.a,
      pairs.b,
    ]);
    await app.db.documentByCcPair.delete({ where: { documentId_ccPairId: { documentId: "a/own", ccPairId: pairs.b } } });
  });

  it("REST DELETE: a document wholly outside the scope answers as a missing one; a shared one is refused", async () => {
    const outside = await answer(await app.request("DELETE", documentPath("b/secret"), { key: keys.a }));
    const missing = await answer(await app.request("DELETE", documentPath("no-such-doc"), { key: keys.a }));
    expect(outside.status).toBe(404);
    expect(JSON.stringify(outside.body).replaceAll("b/secret", "<id>")).toBe(JSON.stringify(missing.body).replaceAll("no-such-doc", "<id>"));
    expect((await app.request("DELETE", documentPath("shared"), { key: keys.a })).status).toBe(403);
    await expectPairBUnchanged();
  });

  it("tRPC documents.delete and documents.retry: outside the scope, as for a missing id", async () => {
    for (const call of [
      (id: string) => consoleA.documents.delete({ documentId: id }),
      (id: string) => consoleA.documents.retry({ documentId: id }),
    ]) {
      const missing = await trpcFailure(call("no-such-doc"), "no-such-doc");
      expect(missing.code).toBe("NOT_FOUND");
      expect(await trpcFailure(call("b/failed"), "b/failed")).toEqual(missing);
      expect(await trpcFailure(call("b/secret"), "b/secret")).toEqual(missing);
    }
    await expectPairBUnchanged();
  });

  it("tRPC pair mutations of a scoped admin session: pair B answers as a missing pair", async () => {
    const missingUpdate = await trpcFailure(consoleAdminA.connectors.update({ ccPairId: 999_999, name: "x" }), "999999");
    expect(missingUpdate.code).toBe("NOT_FOUND");
    expect(await trpcFailure(consoleAdminA.connectors.update({ ccPairId: pairs.b, name: "x" }), String(pairs.b))).toEqual(missingUpdate);
    const missingDelete = await trpcFailure(consoleAdminA.connectors.delete({ ccPairId: 999_999 }), "999999");
    expect(await trpcFailure(consoleAdminA.connectors.delete({ ccPairId: pairs.b }), String(pairs.b))).toEqual(missingDelete);
    await expectPairBUnchanged();
  });
});

describe("reads", () => {
  it("REST GET by id: a document outside answers as a missing one; a shared one shows only in-scope pairs", async () => {
    const outside = await answer(await app.request("GET", documentPath("b/secret"), { key: keys.a }));
    const missing = await answer(await app.request("GET", documentPath("no-such-doc"), { key: keys.a }));
    expect(outside.status).toBe(404);
    expect(JSON.stringify(outside.body).replaceAll("b/secret", "<id>")).toBe(JSON.stringify(missing.body).replaceAll("no-such-doc", "<id>"));
    const shared = DocumentDetailSchema.parse(await (await app.request("GET", documentPath("shared"), { key: keys.a })).json());
    expect(shared.cc_pair_ids).toEqual([pairs.a]);
    const forB = DocumentDetailSchema.parse(await (await app.request("GET", documentPath("shared"), { key: keys.b })).json());
    expect(forB.cc_pair_ids).toEqual([pairs.b]);
    const forAdmin = DocumentDetailSchema.parse(await (await app.request("GET", documentPath("shared"))).json());
    expect(forAdmin.cc_pair_ids).toEqual([pairs.a, pairs.b].sort((x, y) => x - y));
    await expectPairBUnchanged();
  });

  it("REST connector-docs: pair B answers as a missing pair", async () => {
    const outside = await answer(await app.request("GET", `${CONNECTOR_DOCS}/${pairs.b}`, { key: keys.a }));
    const missing = await answer(await app.request("GET", `${CONNECTOR_DOCS}/999999`, { key: keys.a }));
    expect(outside.status).toBe(404);
    expect(JSON.stringify(outside.body).replaceAll(String(pairs.b), "<id>")).toBe(JSON.stringify(missing.body).replaceAll("999999", "<id>"));
    await expectPairBUnchanged();
  });

  it("REST listings: the ingestion list and the indexing status leave out what is only B's", async () => {
    const listed = DocMinimalInfoListSchema.parse(await (await app.request("GET", `${INGESTION}?limit=1000`, { key: keys.a })).json());
    const ids = listed.map((row) => row.document_id);
    expect(ids).toEqual(expect.arrayContaining(["a/own", "shared"]));
    expect(ids).not.toContain("b/secret");
    expect(ids).not.toContain("b/failed");
    const status = (await (await app.request("POST", INDEXING_STATUS, { body: {}, key: keys.a })).json()) as {
      indexing_statuses: { cc_pair_id?: number }[];
    }[];
    const pairIds = status.flatMap((group) => group.indexing_statuses.map((row) => row.cc_pair_id));
    expect(pairIds).toContain(pairs.a);
    expect(pairIds).not.toContain(pairs.b);
    await expectPairBUnchanged();
  });

  it("REST search: finds the scope's documents only", async () => {
    const response = await app.request("POST", SEARCH, { body: { query: "zephyrine" }, key: keys.a });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: { document_id: string }[] };
    expect(results.map((result) => result.document_id).sort()).toEqual(["a/own", "shared"]);
    await expectPairBUnchanged();
  });

  it("tRPC reads: documents.get, documents.search, connectors.get/attempts/documents, health", async () => {
    const missing = await trpcFailure(consoleA.documents.get({ documentId: "no-such-doc" }), "no-such-doc");
    expect(missing.code).toBe("NOT_FOUND");
    expect(await trpcFailure(consoleA.documents.get({ documentId: "b/secret" }), "b/secret")).toEqual(missing);
    expect((await consoleA.documents.get({ documentId: "shared" })).ccPairIds).toEqual([pairs.a]);
    const found = await consoleA.documents.search({ query: "zephyrine", limit: 10, filters: null, principal: null });
    expect(found.results.map((result) => result.documentId).sort()).toEqual(["a/own", "shared"]);

    const b = String(pairs.b);
    const missingPair = await trpcFailure(consoleA.connectors.get({ ccPairId: 999_999 }), "999999");
    expect(missingPair.code).toBe("NOT_FOUND");
    expect(await trpcFailure(consoleA.connectors.get({ ccPairId: pairs.b }), b)).toEqual(missingPair);
    expect(await trpcFailure(consoleA.connectors.attempts({ ccPairId: pairs.b, limit: 10 }), b)).toEqual(
      await trpcFailure(consoleA.connectors.attempts({ ccPairId: 999_999, limit: 10 }), "999999"),
    );
    expect(await trpcFailure(consoleA.connectors.documents({ ccPairId: pairs.b, limit: 10, cursor: null }), b)).toEqual(
      await trpcFailure(consoleA.connectors.documents({ ccPairId: 999_999, limit: 10, cursor: null }), "999999"),
    );
    const listing = await consoleA.connectors.indexingStatus({});
    expect(listing.flatMap((group) => group.indexingStatuses.map((row) => ("ccPairId" in row ? row.ccPairId : null)))).not.toContain(pairs.b);
    await expectPairBUnchanged();
  });
});
