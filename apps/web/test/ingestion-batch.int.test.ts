// POST /svc-api/ingestion/batch (docs/decisions.md "Bulk ingestion"): each item answered exactly as the
// single call would answer it, in request order; accepted items stored with their jobs.
import { createTestPair } from "@svc/core/testing";
import { MAX_INGESTION_BATCH_SIZE } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { ingestionBody, useTestApp } from "./app";

const app = useTestApp();

const BATCH_PATH = "/api/svc-api/ingestion/batch";

function ingestBatch(body: unknown, key?: string): Promise<Response> {
  return app.request("POST", BATCH_PATH, { body, key });
}

async function batchResults(documents: unknown[], key?: string): Promise<unknown[]> {
  const response = await ingestBatch({ documents }, key);
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: unknown[] }).results;
}

async function jobVersions(documentId: string): Promise<number[]> {
  const rows = await app.db.$queryRaw<{ version: number }[]>`
    SELECT (data->>'version')::int AS version FROM pgboss.job
    WHERE name = 'index-document' AND data->>'documentId' = ${documentId} ORDER BY created_on, (data->>'version')::int`;
  return rows.map((row) => row.version);
}

/** The 422 detail of the single call, with its locs moved under the batch item at `index`. */
async function singleCallDetailAt(body: unknown, index: number): Promise<unknown> {
  const single = await app.ingest(JSON.stringify(body));
  expect(single.status).toBe(422);
  const { detail } = (await single.json()) as { detail: Array<{ loc: unknown[] }> };
  return detail.map((item) => ({ ...item, loc: ["body", "documents", index, ...item.loc.slice(1)] }));
}

describe("POST /api/svc-api/ingestion/batch: per-item results", () => {
  it("answers each item in request order, stores the accepted ones with one job each, and nothing of the others", async () => {
    await app.ingest(ingestionBody({ id: "batch-existing" }));
    const invalid = ingestionBody({ id: "batch-invalid", sections: [{ text: 5 }], metadata: "x" });
    const unknownImage = ingestionBody({ id: "batch-no-image", sections: [{ image_file_id: "nope" }] });
    const documents = [
      ingestionBody({ id: "batch-new" }),
      invalid,
      ingestionBody({ id: "batch-existing", title: "Updated" }),
      ingestionBody({ id: "batch-no-pair" }, { cc_pair_id: 999_999 }),
      unknownImage,
      "not an object",
      ingestionBody({ id: undefined, semantic_identifier: "Inferred id" }),
    ];
    const results = await batchResults(documents);

    expect(results).toEqual([
      { document_id: "batch-new", already_existed: false },
      { error: { status: 422, detail: await singleCallDetailAt(invalid, 1) } },
      { document_id: "batch-existing", already_existed: true },
      { error: { status: 400, detail: "Connector-Credential Pair specified does not exist" } },
      { error: { status: 422, detail: await singleCallDetailAt(unknownImage, 4) } },
      { error: { status: 422, detail: await singleCallDetailAt("not an object", 5) } },
      { document_id: "ingestion_api_Inferred_id", already_existed: false },
    ]);
    // The image item's detail names the section under the item.
    expect(results[4]).toMatchObject({ error: { detail: [{ loc: ["body", "documents", 4, "document", "sections", 0, "image_file_id"] }] } });

    const stored = await app.db.document.findMany({
      where: { id: { in: ["batch-new", "batch-existing", "ingestion_api_Inferred_id", "batch-invalid", "batch-no-pair", "batch-no-image"] } },
      select: { id: true, title: true, version: true, fromIngestionApi: true },
      orderBy: { id: "asc" },
    });
    expect(stored).toEqual([
      { id: "batch-existing", title: "Updated", version: 2, fromIngestionApi: true },
      { id: "batch-new", title: null, version: 1, fromIngestionApi: true },
      { id: "ingestion_api_Inferred_id", title: null, version: 1, fromIngestionApi: true },
    ]);
    expect(await jobVersions("batch-new")).toEqual([1]);
    expect(await jobVersions("batch-existing")).toEqual([1, 2]);
    expect(await jobVersions("ingestion_api_Inferred_id")).toEqual([1]);
    expect(await jobVersions("batch-no-pair")).toEqual([]);
  });

  it("writes an id repeated in one batch in request order: the later item wins and sees the earlier one", async () => {
    const results = await batchResults([
      ingestionBody({ id: "batch-twice", title: "First" }),
      ingestionBody({ id: "batch-other" }),
      ingestionBody({ id: "batch-twice", title: "Second" }),
    ]);
    expect(results).toEqual([
      { document_id: "batch-twice", already_existed: false },
      { document_id: "batch-other", already_existed: false },
      { document_id: "batch-twice", already_existed: true },
    ]);
    expect(await app.db.document.findUnique({ where: { id: "batch-twice" }, select: { title: true, version: true } })).toEqual({
      title: "Second",
      version: 2,
    });
    expect(await jobVersions("batch-twice")).toEqual([1, 2]);
  });

  it("links documents to the named pair, as the single call does", async () => {
    const pairId = await createTestPair(app.db);
    expect(await batchResults([ingestionBody({ id: "batch-in-pair" }, { cc_pair_id: pairId })])).toEqual([
      { document_id: "batch-in-pair", already_existed: false },
    ]);
    const links = await app.db.documentByCcPair.findMany({ where: { documentId: "batch-in-pair" }, select: { ccPairId: true } });
    expect(links).toEqual([{ ccPairId: pairId }]);
  });

  it("answers a scoped key's refusals per item (403 with the single call's detail) and stores its other items", async () => {
    const [own, other] = [await createTestPair(app.db, { access: "private" }), await createTestPair(app.db, { access: "private" })];
    await app.ingest(ingestionBody({ id: "batch-elsewhere" }, { cc_pair_id: other }));
    const scopedKey = await app.createKey("curator", [own]);
    const results = await batchResults(
      [
        ingestionBody({ id: "batch-scoped-ok" }, { cc_pair_id: own }),
        ingestionBody({ id: "batch-elsewhere", title: "Taken over" }, { cc_pair_id: own }),
        ingestionBody({ id: "batch-wrong-pair" }, { cc_pair_id: other }),
        ingestionBody({ id: "batch-scoped-ok-2" }, { cc_pair_id: own }),
      ],
      scopedKey,
    );
    const single = await app.ingest(ingestionBody({ id: "batch-elsewhere" }, { cc_pair_id: own }), scopedKey);
    expect(single.status).toBe(403);
    const wrongPair = await app.ingest(ingestionBody({ id: "batch-wrong-pair" }, { cc_pair_id: other }), scopedKey);
    expect(wrongPair.status).toBe(403);

    expect(results).toEqual([
      { document_id: "batch-scoped-ok", already_existed: false },
      { error: { status: 403, detail: ((await single.json()) as { detail: string }).detail } },
      { error: { status: 403, detail: ((await wrongPair.json()) as { detail: string }).detail } },
      { document_id: "batch-scoped-ok-2", already_existed: false },
    ]);
    expect(results[1]).toEqual({
      error: { status: 403, detail: "This key cannot write document batch-elsewhere: it belongs to a connector outside the key's scope" },
    });
    const untouched = await app.db.document.findUnique({ where: { id: "batch-elsewhere" }, select: { title: true, version: true } });
    expect(untouched).toEqual({ title: null, version: 1 });
    expect(await app.db.document.count({ where: { id: "batch-wrong-pair" } })).toBe(0);
    expect(await jobVersions("batch-scoped-ok-2")).toEqual([1]);
  });
});

describe("POST /api/svc-api/ingestion/batch: the request as a whole", () => {
  it(`takes ${MAX_INGESTION_BATCH_SIZE} documents, and answers 413 naming the limit past it, storing nothing`, async () => {
    const full = Array.from({ length: MAX_INGESTION_BATCH_SIZE }, (_, index) => ingestionBody({ id: `batch-full-${index}` }));
    const results = await batchResults(full);
    expect(results).toHaveLength(MAX_INGESTION_BATCH_SIZE);
    expect(results[999]).toEqual({ document_id: "batch-full-999", already_existed: false });
    expect(await app.db.document.count({ where: { id: { startsWith: "batch-full-" } } })).toBe(MAX_INGESTION_BATCH_SIZE);
    const [{ jobs }] = await app.db.$queryRaw<[{ jobs: number }]>`
      SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = 'index-document' AND data->>'documentId' LIKE 'batch-full-%'`;
    expect(jobs).toBe(MAX_INGESTION_BATCH_SIZE);

    const tooMany = [...full, ingestionBody({ id: "batch-one-too-many" })];
    const response = await ingestBatch({ documents: tooMany });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: "A batch holds at most 1000 documents; this one has 1001." });
    expect(await app.db.document.count({ where: { id: "batch-one-too-many" } })).toBe(0);
  });

  it("answers 422 to a body that is not an object with a non-empty documents list", async () => {
    const detailOf = async (body: unknown) => {
      const response = await ingestBatch(body);
      expect(response.status).toBe(422);
      return ((await response.json()) as { detail: unknown }).detail;
    };
    expect(await detailOf([ingestionBody()])).toEqual([
      {
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: [ingestionBody()],
      },
    ]);
    expect(await detailOf({})).toEqual([{ type: "missing", loc: ["body", "documents"], msg: "Field required", input: {} }]);
    expect(await detailOf({ documents: ingestionBody() })).toEqual([
      { type: "list_type", loc: ["body", "documents"], msg: "Input should be a valid list", input: ingestionBody() },
    ]);
    expect(await detailOf({ documents: [] })).toEqual([
      {
        type: "too_short",
        loc: ["body", "documents"],
        msg: "List should have at least 1 item after validation, not 0",
        input: [],
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      },
    ]);
    expect(await detailOf("{")).toMatchObject([{ type: "json_invalid", loc: ["body", 1] }]);
  });

  it("needs an admin or curator key, checked before the body", async () => {
    expect((await ingestBatch({ documents: [ingestionBody({ id: "batch-no-key" })] }, "not-a-key")).status).toBe(401);
    const basic = await app.createKey("basic");
    expect((await ingestBatch({ documents: [ingestionBody({ id: "batch-basic" })] }, basic)).status).toBe(403);
    expect(await app.db.document.count({ where: { id: { in: ["batch-no-key", "batch-basic"] } } })).toBe(0);
  });

  it("leaves GET and DELETE of a document whose id is 'batch' to the document routes", async () => {
    await app.ingest(ingestionBody({ id: "batch" }));
    const got = await app.request("GET", BATCH_PATH);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: "batch" });
    expect((await app.request("PUT", BATCH_PATH)).headers.get("allow")).toBe("GET, DELETE, POST");
    expect((await app.request("DELETE", BATCH_PATH)).status).toBe(200);
  });
});
