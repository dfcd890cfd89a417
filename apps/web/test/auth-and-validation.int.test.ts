import { API_KEY_CHANGES_CHANNEL, hashApiKey, revokeApiKey } from "@svc/core";
import { describe, expect, it } from "vitest";
import { ERROR_DETAIL, ingestionBody, useTestApp } from "./app";

const app = useTestApp();

type Detail = { type: string; loc: (string | number)[]; msg: string; input?: unknown };
async function details(response: Response): Promise<Detail[]> {
  expect(response.status).toBe(422);
  return ((await response.json()) as { detail: Detail[] }).detail;
}

describe("bearer authentication", () => {
  it("answers 401 with WWW-Authenticate for a missing or unknown key, before looking at the body", async () => {
    for (const key of [null, "svc_not-a-real-key"]) {
      const response = await app.request("POST", "/api/svc-api/ingestion", { body: "{not json", key });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual(ERROR_DETAIL);
    }
  });

  it("answers 401 for a malformed Authorization header", async () => {
    const response = await app.request("POST", "/api/svc-api/ingestion", {
      body: ingestionBody(),
      key: null,
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    });
    expect(response.status).toBe(401);
  });

  it("answers 403 to roles below curator and accepts curator and admin", async () => {
    for (const role of ["basic", "limited"] as const) {
      const response = await app.ingest(ingestionBody({ id: `role-${role}` }), await app.createKey(role));
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual(ERROR_DETAIL);
    }
    expect((await app.ingest(ingestionBody({ id: "role-curator" }), await app.createKey("curator"))).status).toBe(200);
    expect((await app.ingest(ingestionBody({ id: "role-admin" }))).status).toBe(200);
  });

  it("refuses a revoked key at once", async () => {
    const key = await app.createKey("admin");
    expect((await app.ingest(ingestionBody({ id: "before-revoke" }), key)).status).toBe(200);
    const keyRow = await app.db.apiKey.findFirstOrThrow({ orderBy: { id: "desc" } });
    await revokeApiKey({ db: app.db, id: keyRow.id });
    expect((await app.ingest(ingestionBody({ id: "after-revoke" }), key)).status).toBe(401);
  });

  it("refuses a key revoked by another process (the command line) as soon as the change is announced", async () => {
    const key = await app.createKey("curator");
    expect((await app.ingest(ingestionBody({ id: "cached-key" }), key)).status).toBe(200); // now cached
    // What another process's revokeApiKey does: it cannot evict this process's cache directly.
    await app.db.$executeRaw`UPDATE api_key SET revoked_at = now() WHERE hashed_key = ${hashApiKey(key)}`;
    await app.db.$executeRaw`SELECT pg_notify(${API_KEY_CHANGES_CHANNEL}, ${hashApiKey(key)})`;
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) {
      status = (await app.ingest(ingestionBody({ id: "cached-key" }), key)).status;
    }
    expect(status).toBe(401);
  });
});

describe("the 422 body", () => {
  it("reports a missing body and malformed JSON like FastAPI", async () => {
    const missing = await details(await app.request("POST", "/api/svc-api/ingestion", {}));
    expect(missing).toEqual([expect.objectContaining({ type: "missing", loc: ["body"], msg: "Field required" })]);
    const malformed = await details(await app.request("POST", "/api/svc-api/ingestion", { body: '{"document": ' }));
    expect(malformed).toEqual([expect.objectContaining({ type: "json_invalid", loc: ["body", 13] })]);
  });

  it.each([
    ["document", {}, ["body", "document"]],
    ["document.sections", { document: { semantic_identifier: "s", metadata: {} } }, ["body", "document", "sections"]],
    ["document.semantic_identifier", { document: { sections: [], metadata: {} } }, ["body", "document", "semantic_identifier"]],
    ["document.metadata", { document: { sections: [], semantic_identifier: "s" } }, ["body", "document", "metadata"]],
  ])("gives type missing at the loc of %s", async (_name, body, loc) => {
    expect(await details(await app.ingest(body))).toContainEqual(expect.objectContaining({ type: "missing", loc, msg: "Field required" }));
  });

  it.each([
    ["cc_pair_id", {}, { cc_pair_id: "abc" }, ["body", "cc_pair_id"], "int_parsing"],
    ["cc_pair_id", {}, { cc_pair_id: [1] }, ["body", "cc_pair_id"], "int_type"],
    ["document", {}, { document: "text" }, ["body", "document"], "model_attributes_type"],
    ["id", { id: 5 }, {}, ["body", "document", "id"], "string_type"],
    ["semantic_identifier", { semantic_identifier: 5 }, {}, ["body", "document", "semantic_identifier"], "string_type"],
    ["sections", { sections: "text" }, {}, ["body", "document", "sections"], "list_type"],
    ["source", { source: "nowhere" }, {}, ["body", "document", "source"], "enum"],
    ["metadata", { metadata: [] }, {}, ["body", "document", "metadata"], "dict_type"],
    ["doc_updated_at", { doc_updated_at: "yesterday" }, {}, ["body", "document", "doc_updated_at"], "datetime_from_date_parsing"],
    ["chunk_count", { chunk_count: "many" }, {}, ["body", "document", "chunk_count"], "int_parsing"],
    ["primary_owners", { primary_owners: "ada" }, {}, ["body", "document", "primary_owners"], "list_type"],
    ["secondary_owners", { secondary_owners: [{ email: 5 }] }, {}, ["body", "document", "secondary_owners", 0, "email"], "string_type"],
    ["title", { title: ["x"] }, {}, ["body", "document", "title"], "string_type"],
    ["from_ingestion_api", { from_ingestion_api: "maybe" }, {}, ["body", "document", "from_ingestion_api"], "bool_parsing"],
    ["external_access", { external_access: { external_user_emails: [], external_user_group_ids: [] } }, {}, ["body", "document", "external_access", "is_public"], "missing"],
    ["doc_metadata", { doc_metadata: "x" }, {}, ["body", "document", "doc_metadata"], "dict_type"],
  ])("gives the right loc and type for a wrong %s", async (_field, document, extra, loc, type) => {
    const response = await app.ingest(ingestionBody({ id: `bad-${String(_field)}`, ...document }, extra));
    expect(await details(response)).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it("coerces scalars the way pydantic's lax mode does", async () => {
    const response = await app.ingest(ingestionBody({ id: "lax", chunk_count: "5", from_ingestion_api: "false" }, { cc_pair_id: "1" }));
    expect(response.status).toBe(200);
    expect(await app.db.document.findUnique({ where: { id: "lax" } })).toMatchObject({ chunkCount: 5 });
  });

  it("loses nothing already stored when a re-ingest is invalid", async () => {
    await app.ingest(ingestionBody({ id: "keep-me", metadata: { kept: "yes" } }));
    expect((await app.ingest(ingestionBody({ id: "keep-me", metadata: ["kept"] }))).status).toBe(422);
    expect(await app.db.document.findUnique({ where: { id: "keep-me" } })).toMatchObject({ metadata: { kept: "yes" }, version: 1 });
  });
});

describe("GET /api/openapi.json", () => {
  it("describes every endpoint with BearerAuth", async () => {
    const response = await app.request("GET", "/api/openapi.json", { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown>; components: { securitySchemes: object } };
    expect(document.openapi).toMatch(/^3\.1/);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/svc-api/ingestion", "/manage/admin/connector/indexing-status", "/user/file/upload"]),
    );
    expect(document.components.securitySchemes).toEqual({ BearerAuth: { type: "http", scheme: "bearer" } });
  });
});
