import { testSearchIndex } from "@svc/core/testing";
import { purgeCcPair } from "@svc/core";
import { CcPairSchema, CreatedCcPairSchema, type CcPair } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { ERROR_DETAIL, ingestionBody, useTestApp } from "./app";
import { createPairOverApi, ingestOverApi } from "./factories";
import { indexQueuedDocuments, insertIndexAttempts } from "./connectors";

const app = useTestApp();
const PAIRS = "/api/manage/admin/cc-pair";
const FEDERATED = "/api/manage/admin/federated-connector";
/** Asymmetric matchers are typed `any`; typed once here. */
const UTC_TIMESTAMP: unknown = expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);

async function getPair(id: number): Promise<CcPair> {
  const response = await app.request("GET", `${PAIRS}/${id}`);
  expect(response.status).toBe(200);
  return CcPairSchema.parse(await response.json());
}

async function patchPair(id: number | string, body: unknown, key?: string): Promise<Response> {
  return app.request("PATCH", `${PAIRS}/${id}`, { body, key });
}

async function linksOf(ccPairId: number) {
  return app.db.documentByCcPair.findMany({ where: { ccPairId }, select: { documentId: true, hasBeenIndexed: true } });
}

async function detail(response: Response, status: number): Promise<unknown> {
  expect(response.status).toBe(status);
  return response.json();
}

describe("POST /api/manage/admin/cc-pair", () => {
  it("creates a connector, a credential and their pair, SCHEDULED", async () => {
    const response = await app.request("POST", PAIRS, { body: { name: "Wiki", source: "confluence", access_type: "private" } });
    expect(response.status).toBe(200);
    const created = CreatedCcPairSchema.parse(await response.json());
    const pair = await getPair(created.cc_pair_id);
    expect(pair).toEqual({
      id: created.cc_pair_id,
      name: "Wiki",
      source: "confluence",
      access_type: "private",
      status: "SCHEDULED",
      connector_id: created.connector_id,
      credential_id: created.credential_id,
      docs_indexed: 0,
      created_at: UTC_TIMESTAMP,
      updated_at: UTC_TIMESTAMP,
    });
  });

  it("answers 422 for missing or wrong fields", async () => {
    const body = (await detail(await app.request("POST", PAIRS, { body: { source: "web", access_type: "everyone" } }), 422)) as {
      detail: Array<{ loc: unknown[]; type: string }>;
    };
    expect(body.detail.map((item) => [item.loc, item.type])).toEqual([
      [["body", "name"], "missing"],
      [["body", "access_type"], "enum"],
    ]);
    await detail(await app.request("POST", PAIRS, {}), 422);
  });

  it("is for admins only: 401 without a key, 403 for a curator", async () => {
    const body = { name: "x", source: "web", access_type: "public" };
    const unauthenticated = await app.request("POST", PAIRS, { body, key: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toBe("Bearer");
    expect(await detail(await app.request("POST", PAIRS, { body, key: await app.createKey("curator") }), 403)).toEqual(ERROR_DETAIL);
  });
});

describe("GET /api/manage/admin/cc-pair/{id}", () => {
  it("answers 404 for an unknown id, and 422 at path.id for a non-integer one", async () => {
    for (const id of [987654, 0, -3]) {
      expect(await detail(await app.request("GET", `${PAIRS}/${id}`), 404)).toEqual(ERROR_DETAIL);
    }
    // Pair ids are PostgreSQL int4: beyond it, the bound (decisions.md, "Every error is JSON").
    expect(await detail(await app.request("GET", `${PAIRS}/99999999999`), 422)).toEqual({
      detail: [expect.objectContaining({ type: "less_than_equal", loc: ["path", "id"], ctx: { le: 2147483647 } })],
    });
    expect(await detail(await app.request("GET", `${PAIRS}/abc`), 422)).toEqual({
      detail: [
        {
          type: "int_parsing",
          loc: ["path", "id"],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          input: "abc",
        },
      ],
    });
  });

  it("shows the default pair", async () => {
    expect(await getPair(1)).toMatchObject({ id: 1, name: "DefaultCCPair", source: "ingestion_api", status: "ACTIVE" });
  });

  it("shows a scoped key its pairs and public ones, and no other", async () => {
    const mine = await createPairOverApi(app, { name: "Mine", access: "private" });
    const publicPair = await createPairOverApi(app, { name: "Public" });
    const theirs = await createPairOverApi(app, { name: "Theirs", access: "private" });
    const key = await app.createKey("admin", [mine]);
    expect((await app.request("GET", `${PAIRS}/${mine}`, { key })).status).toBe(200);
    expect((await app.request("GET", `${PAIRS}/${publicPair}`, { key })).status).toBe(200);
    expect((await app.request("GET", `${PAIRS}/${theirs}`, { key })).status).toBe(404);
  });
});

describe("PATCH /api/manage/admin/cc-pair/{id}", () => {
  it("renames, pauses and resumes", async () => {
    const id = await createPairOverApi(app, { name: "Old name" });
    expect(CcPairSchema.parse(await detail(await patchPair(id, { name: "New name" }), 200))).toMatchObject({
      name: "New name",
      status: "SCHEDULED",
    });
    expect(await detail(await patchPair(id, { status: "PAUSED" }), 200)).toMatchObject({ status: "PAUSED" });
    expect(await detail(await patchPair(id, { status: "PAUSED" }), 200)).toMatchObject({ status: "PAUSED" });
    expect(await detail(await patchPair(id, { status: "ACTIVE", name: "Resumed" }), 200)).toMatchObject({
      status: "ACTIVE",
      name: "Resumed",
    });
    // Resuming a pair that is not paused changes nothing; an empty body changes nothing.
    expect(await detail(await patchPair(id, { status: "ACTIVE" }), 200)).toMatchObject({ status: "ACTIVE" });
    expect(await detail(await patchPair(id, {}), 200)).toMatchObject({ status: "ACTIVE", name: "Resumed" });
  });

  it("keeps a paused pair accepting documents", async () => {
    const id = await createPairOverApi(app, { name: "Paused" });
    await patchPair(id, { status: "PAUSED" });
    await ingestOverApi(app, { id: "paused-doc", ccPairId: id });
    expect(await linksOf(id)).toEqual([{ documentId: "paused-doc", hasBeenIndexed: false }]);
  });

  it("refuses statuses other than ACTIVE and PAUSED, and bad names, with 422", async () => {
    const id = await createPairOverApi(app, { name: "Strict" });
    for (const [body, loc, type] of [
      [{ status: "DELETING" }, ["body", "status"], "enum"],
      [{ status: "SCHEDULED" }, ["body", "status"], "enum"],
      [{ name: "" }, ["body", "name"], "string_too_short"],
      [{ name: 12 }, ["body", "name"], "string_type"],
    ] as const) {
      expect(await detail(await patchPair(id, body), 422)).toEqual({ detail: [expect.objectContaining({ loc, type })] });
    }
    expect(await detail(await patchPair("x1", { name: "y" }), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["path", "id"], type: "int_parsing" })],
    });
  });

  it("answers 404 for an unknown pair, 400 for the default pair, 403 outside a key's scope", async () => {
    expect(await detail(await patchPair(424242, { name: "x" }), 404)).toEqual(ERROR_DETAIL);
    expect(await detail(await patchPair(1, { status: "PAUSED" }), 400)).toEqual(ERROR_DETAIL);
    expect((await getPair(1)).status).toBe("ACTIVE");
    const publicPair = await createPairOverApi(app, { name: "Public" });
    const privatePair = await createPairOverApi(app, { name: "Private", access: "private" });
    const key = await app.createKey("admin", [await createPairOverApi(app, { name: "Scope" })]);
    expect((await patchPair(publicPair, { name: "x" }, key)).status).toBe(403);
    expect((await patchPair(privatePair, { name: "x" }, key)).status).toBe(404);
  });
});

describe("DELETE /api/manage/admin/cc-pair/{id}", () => {
  it("marks the pair DELETING and queues the job; the job removes the pair and its own documents only", async () => {
    const doomed = await createPairOverApi(app, { name: "Doomed", source: "file" });
    const survivor = await createPairOverApi(app, { name: "Survivor", source: "file" });
    await ingestOverApi(app, { id: "only-doomed", ccPairId: doomed });
    await ingestOverApi(app, { id: "shared", ccPairId: doomed });
    await ingestOverApi(app, { id: "shared", ccPairId: survivor });
    await ingestOverApi(app, { id: "only-survivor", ccPairId: survivor });
    await ingestOverApi(app, { id: "doomed-indexed", ccPairId: doomed });
    await indexQueuedDocuments(app.db);
    await ingestOverApi(app, { id: "doomed-queued", ccPairId: doomed });
    await insertIndexAttempts(app.db, doomed, [{ status: "success", docsIndexed: 3 }]);
    const scopedToDoomed = await app.createKey("curator", [doomed]);
    const scopedToBoth = await app.createKey("curator", [doomed, survivor]);
    expect((await getPair(doomed)).docs_indexed).toBe(3);
    expect((await getPair(survivor)).docs_indexed).toBe(2);

    const response = await app.request("DELETE", `${PAIRS}/${doomed}`);
    expect(response.status).toBe(202);
    expect(CcPairSchema.parse(await response.json())).toMatchObject({ id: doomed, status: "DELETING" });
    const jobs = await app.db.$queryRaw<{ data: unknown }[]>`SELECT data FROM pgboss.job WHERE name = 'delete-cc-pair'`;
    expect(jobs.map((job) => job.data)).toContainEqual({ ccPairId: doomed });

    // While it waits for the job: visible by id, refused for ingestion and changes.
    expect((await getPair(doomed)).status).toBe("DELETING");
    const ingestion = await app.ingest(ingestionBody({ id: "too-late" }, { cc_pair_id: doomed }));
    expect(ingestion.status).toBe(400);
    expect((await patchPair(doomed, { name: "Saved?" })).status).toBe(409);

    const result = await purgeCcPair({ index: testSearchIndex(), db: app.db, ccPairId: doomed });
    expect(result).toEqual({ purged: true, linksRemoved: 4, documentsDeleted: 3 });

    expect((await app.request("GET", `${PAIRS}/${doomed}`)).status).toBe(404);
    const remaining = await app.db.document.findMany({ where: { id: { in: ["only-doomed", "shared", "only-survivor", "doomed-indexed", "doomed-queued"] } }, select: { id: true } });
    expect(remaining.map((document) => document.id).sort()).toEqual(["only-survivor", "shared"]);
    expect(await app.db.documentChunk.count({ where: { documentId: { in: ["only-doomed", "doomed-indexed"] } } })).toBe(0);
    expect(await app.db.documentSection.count({ where: { documentId: { in: ["only-doomed", "doomed-queued"] } } })).toBe(0);
    expect(await app.db.documentChunk.count({ where: { documentId: "shared" } })).toBeGreaterThan(0);
    expect(await app.db.indexAttempt.count({ where: { ccPairId: doomed } })).toBe(0);
    expect((await getPair(survivor)).docs_indexed).toBe(2);
    expect(await app.db.connector.count({ where: { pairs: { none: {} } } })).toBe(0);

    // A key scoped only to the deleted pair is revoked, not widened to every pair.
    expect((await app.ingest(ingestionBody({ id: "widened?" }, { cc_pair_id: survivor }), scopedToDoomed)).status).toBe(401);
    expect((await app.ingest(ingestionBody({ id: "still-scoped" }, { cc_pair_id: survivor }), scopedToBoth)).status).toBe(200);
    expect((await app.ingest(ingestionBody({ id: "outside-scope" }), scopedToBoth)).status).toBe(403);

    // Running the job again is harmless.
    expect(await purgeCcPair({ index: testSearchIndex(), db: app.db, ccPairId: doomed })).toEqual({ purged: false, linksRemoved: 0, documentsDeleted: 0 });
  });

  it("is idempotent while the pair waits, and refuses the default pair", async () => {
    const id = await createPairOverApi(app, { name: "Twice" });
    expect((await app.request("DELETE", `${PAIRS}/${id}`)).status).toBe(202);
    expect((await app.request("DELETE", `${PAIRS}/${id}`)).status).toBe(202);
    await purgeCcPair({ index: testSearchIndex(), db: app.db, ccPairId: id });
    expect((await app.request("DELETE", `${PAIRS}/${id}`)).status).toBe(404);
    expect((await app.request("DELETE", `${PAIRS}/1`)).status).toBe(400);
    expect((await app.request("DELETE", `${PAIRS}/nope`)).status).toBe(422);
  });

  it("the job does nothing to a pair that is not marked DELETING", async () => {
    const id = await createPairOverApi(app, { name: "Alive" });
    await ingestOverApi(app, { id: "alive-doc", ccPairId: id });
    expect(await purgeCcPair({ index: testSearchIndex(), db: app.db, ccPairId: id })).toMatchObject({ purged: false });
    expect((await getPair(id)).status).toBe("SCHEDULED");
    expect(await linksOf(id)).toHaveLength(1);
  });
});

describe("federated connectors", () => {
  it("are created with a source and an optional name, and deleted by id", async () => {
    const created = await app.request("POST", FEDERATED, { body: { source: "federated_slack" } });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: number };
    expect(await app.db.federatedConnector.findUniqueOrThrow({ where: { id } })).toMatchObject({ source: "federated_slack", name: null });
    const named = (await detail(await app.request("POST", FEDERATED, { body: { source: "federated_slack", name: "Chat" } }), 200)) as {
      id: number;
    };
    expect(named.id).toBeGreaterThan(id);

    expect(await detail(await app.request("DELETE", `${FEDERATED}/${id}`), 200)).toEqual({ id });
    expect(await detail(await app.request("DELETE", `${FEDERATED}/${id}`), 404)).toEqual(ERROR_DETAIL);
  });

  it("validate the source, the name and the path id", async () => {
    expect(await detail(await app.request("POST", FEDERATED, { body: { source: "slack" } }), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["body", "source"], type: "enum" })],
    });
    expect(await detail(await app.request("POST", FEDERATED, { body: { name: "x" } }), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["body", "source"], type: "missing" })],
    });
    expect(await detail(await app.request("DELETE", `${FEDERATED}/one`), 422)).toEqual({
      detail: [expect.objectContaining({ loc: ["path", "id"], type: "int_parsing" })],
    });
    expect((await app.request("POST", FEDERATED, { body: { source: "federated_slack" }, key: await app.createKey("curator") })).status).toBe(403);
  });
});
