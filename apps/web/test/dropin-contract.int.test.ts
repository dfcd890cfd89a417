// What the original's own clients (its guide scripts, integration-test managers, admin scripts and
// pydantic models) rely on, pinned with the exact bodies: issue 14, docs/decisions.md "Per-document
// routes and document lists", "Pairs", "Uploads", "Every error is JSON", "Connector listing".
import { recordWorkerHeartbeat } from "@svc/core";
import { createTestPair } from "@svc/core/testing";
import { REST_CONTRACT, encodeDocumentCursor, type RestEndpoint } from "@svc/schema";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "./app";
import { ingestOverApi, PNG, uploadForm } from "./factories";

const app = useTestApp();
const INGESTION = "/api/svc-api/ingestion";
const CONNECTOR_DOCS = "/api/svc-api/connector-docs";
const ORIGIN = "http://localhost";

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

const row = (id: string) => ({ document_id: id, semantic_id: `Doc ${id}`, link: `https://example.com/${id}` });

describe("document lists are bare JSON arrays", () => {
  let pair: number;
  let otherPair: number;
  beforeAll(async () => {
    pair = await createTestPair(app.db, { name: "Lists", access: "private" });
    otherPair = await createTestPair(app.db, { name: "Lists elsewhere", access: "private" });
    for (const id of ["list/c", "list/a", "list/b"]) await ingestOverApi(app, { id, ccPairId: pair });
    await ingestOverApi(app, { id: "list/hidden", ccPairId: otherPair });
  });

  it("answers the whole list, ordered by id, without a Link header", async () => {
    const response = await app.request("GET", `${CONNECTOR_DOCS}/${pair}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("link")).toBeNull();
    expect(await response.json()).toEqual([row("list/a"), row("list/b"), row("list/c")]);

    const ingested = (await (await app.request("GET", INGESTION)).json()) as { document_id: string }[];
    expect(ingested).toEqual(expect.arrayContaining([row("list/a"), row("list/hidden")]));
    expect(ingested.map((document) => document.document_id)).toEqual(ingested.map((document) => document.document_id).sort());
    // An empty list is an empty array.
    const empty = await createTestPair(app.db, { name: "Empty" });
    expect(await answer(await app.request("GET", `${CONNECTOR_DOCS}/${empty}`))).toEqual({ status: 200, body: [] });
  });

  it("with limit: one page and Link rel=next (the same URL with the cursor) while more remain", async () => {
    const first = await app.request("GET", `${CONNECTOR_DOCS}/${pair}?limit=2`);
    expect(await first.json()).toEqual([row("list/a"), row("list/b")]);
    const next = `${ORIGIN}${CONNECTOR_DOCS}/${pair}?limit=2&cursor=${encodeDocumentCursor("list/b")}`;
    expect(first.headers.get("link")).toBe(`<${next}>; rel="next"`);

    const last = await app.request("GET", next.slice(ORIGIN.length));
    expect(await last.json()).toEqual([row("list/c")]);
    expect(last.headers.get("link")).toBeNull();

    // Exactly a page's worth: no Link, never a pointer at an empty page.
    const exact = await app.request("GET", `${CONNECTOR_DOCS}/${pair}?limit=3`);
    expect(await exact.json()).toHaveLength(3);
    expect(exact.headers.get("link")).toBeNull();
  });

  it("answers a malformed cursor 422 at [query, cursor], and a limit outside 1–1,000 at [query, limit]", async () => {
    for (const path of [INGESTION, `${CONNECTOR_DOCS}/${pair}`]) {
      expect(await answer(await app.request("GET", `${path}?cursor=not*base64`))).toEqual({
        status: 422,
        body: {
          detail: [
            {
              type: "value_error",
              loc: ["query", "cursor"],
              msg: "Value error, cursor is not a next_cursor of this listing",
              input: "not*base64",
            },
          ],
        },
      });
      for (const [limit, type] of [["0", "greater_than_equal"], ["1001", "less_than_equal"]] as const) {
        const { status, body } = await answer(await app.request("GET", `${path}?limit=${limit}`));
        expect(status).toBe(422);
        expect(body).toEqual({ detail: [expect.objectContaining({ type, loc: ["query", "limit"] })] });
      }
    }
  });

  it("shows a scoped key only the documents it may see", async () => {
    const key = await app.createKey("curator", [pair]);
    const listed = (await (await app.request("GET", INGESTION, { key })).json()) as { document_id: string }[];
    expect(listed.map((document) => document.document_id)).toEqual(expect.arrayContaining(["list/a", "list/b", "list/c"]));
    expect(listed.map((document) => document.document_id)).not.toContain("list/hidden");
    expect(await answer(await app.request("GET", `${CONNECTOR_DOCS}/${otherPair}`, { key }))).toEqual({
      status: 404,
      body: { detail: "Connector-Credential Pair not found" },
    });
  });
});

describe("PUT /manage/admin/cc-pair/{id}/status", () => {
  const statusPath = (id: number | string) => `/api/manage/admin/cc-pair/${id}/status`;

  it("pauses and resumes, answering the pair as GET shows it", async () => {
    const pair = await createTestPair(app.db, { name: "Status" });
    const paused = await answer(await app.request("PUT", statusPath(pair), { body: { status: "PAUSED" } }));
    expect(paused).toEqual({ status: 200, body: expect.objectContaining({ id: pair, status: "PAUSED" }) as unknown });
    expect(paused.body).toEqual(await (await app.request("GET", `/api/manage/admin/cc-pair/${pair}`)).json());
    expect((await app.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: pair } })).status).toBe("PAUSED");

    const resumed = await answer(await app.request("PUT", statusPath(pair), { body: { status: "ACTIVE" } }));
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual(await (await app.request("GET", `/api/manage/admin/cc-pair/${pair}`)).json());
    expect((await app.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: pair } })).status).not.toBe("PAUSED");
  });

  it("answers an unknown pair 404, another status 422 enum, the default pair 400", async () => {
    expect(await answer(await app.request("PUT", statusPath(424242), { body: { status: "PAUSED" } }))).toEqual({
      status: 404,
      body: { detail: "Connector-Credential Pair not found" },
    });
    const pair = await createTestPair(app.db, { name: "Status enum" });
    expect(await answer(await app.request("PUT", statusPath(pair), { body: { status: "DELETING" } }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: "enum",
            loc: ["body", "status"],
            msg: "Input should be 'ACTIVE' or 'PAUSED'",
            input: "DELETING",
            ctx: { expected: "'ACTIVE' or 'PAUSED'" },
          },
        ],
      },
    });
    expect((await app.request("PUT", statusPath(pair), { body: {} })).status).toBe(422);
    const defaultPair = await answer(await app.request("PUT", statusPath(1), { body: { status: "PAUSED" } }));
    expect(defaultPair).toEqual({ status: 400, body: { detail: expect.any(String) as unknown } });
  });

  it("follows the other pair routes' roles and scope", async () => {
    const mine = await createTestPair(app.db, { name: "Scoped mine", access: "private" });
    const theirs = await createTestPair(app.db, { name: "Scoped theirs", access: "private" });
    const publicPair = await createTestPair(app.db, { name: "Scoped public", access: "public" });
    const curator = await app.createKey("curator");
    const scopedAdmin = await app.createKey("admin", [mine]);
    const body = { status: "PAUSED" };
    expect((await app.request("PUT", statusPath(mine), { body, key: curator })).status).toBe(403);
    expect((await app.request("PUT", statusPath(mine), { body, key: null })).status).toBe(401);
    expect((await app.request("PUT", statusPath(mine), { body, key: scopedAdmin })).status).toBe(200);
    expect(await answer(await app.request("PUT", statusPath(theirs), { body, key: scopedAdmin }))).toEqual({
      status: 404,
      body: { detail: "Connector-Credential Pair not found" },
    });
    expect((await app.request("PUT", statusPath(publicPair), { body, key: scopedAdmin })).status).toBe(403);
    expect((await app.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: publicPair } })).status).not.toBe("PAUSED");
  });
});

describe("POST /user/projects/file/upload", () => {
  it("stores files like /user/file/upload and answers a CategorizedFilesSnapshot", async () => {
    const response = await app.request("POST", "/api/user/projects/file/upload", {
      body: uploadForm(["diagram.png", PNG], ["notes.txt", new TextEncoder().encode("plain text")]),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user_files: { file_id: string }[] };
    expect(body).toEqual({
      user_files: [
        {
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) as unknown,
          temp_id: null,
          name: "diagram.png",
          project_id: null,
          user_id: null,
          file_id: expect.any(String) as unknown,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
          status: "COMPLETED",
          last_accessed_at: null,
          file_type: "image/png",
          chat_file_type: "image",
          token_count: null,
          chunk_count: null,
        },
      ],
      rejected_files: [{ file_name: "notes.txt", reason: expect.any(String) as unknown }],
    });
    const [uploaded] = body.user_files;
    expect(uploaded).toMatchObject({ id: uploaded?.file_id });
    expect(await app.db.uploadedFile.count({ where: { fileId: uploaded?.file_id } })).toBe(1);

    // Its file_id is what an image section names.
    const ingested = await app.ingest({
      document: { id: "projects-upload", semantic_identifier: "With image", sections: [{ image_file_id: uploaded?.file_id }], metadata: {} },
    });
    expect(ingested.status).toBe(200);
  });

  it("answers 401 without a key and 422 without files, as the older path does", async () => {
    for (const path of ["/api/user/file/upload", "/api/user/projects/file/upload"]) {
      expect((await app.request("POST", path, { body: uploadForm(["a.png", PNG]), key: null })).status).toBe(401);
      expect(await answer(await app.request("POST", path, { body: new FormData() }))).toMatchObject({
        status: 422,
        body: { detail: [{ type: "missing", loc: ["body", "files"] }] },
      });
    }
  });
});

describe("DELETE /svc-api/ingestion/{id}", () => {
  it("answers 200 with body null, then 404 Document not found", async () => {
    await ingestOverApi(app, { id: "delete/me" });
    const deleted = await app.request("DELETE", `${INGESTION}/${encodeURIComponent("delete/me")}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toBe("null");
    expect(await answer(await app.request("DELETE", `${INGESTION}/${encodeURIComponent("delete/me")}`))).toEqual({
      status: 404,
      body: { detail: "Document not found" },
    });
    expect(await answer(await app.request("GET", `${INGESTION}/never-was`))).toEqual({ status: 404, body: { detail: "Document not found" } });
  });
});

describe("listing rows: newer fields", () => {
  const INDEXING_STATUS = "/api/manage/admin/connector/indexing-status";

  async function permissionsByPair(key: string): Promise<Map<number, unknown>> {
    const groups = (await (await app.request("POST", INDEXING_STATUS, { body: { get_all_connectors: true }, key })).json()) as {
      indexing_statuses: { cc_pair_id?: number; permissions?: unknown }[];
    }[];
    const rows = groups.flatMap((group) => group.indexing_statuses).filter((entry) => entry.cc_pair_id !== undefined);
    return new Map(rows.map((entry) => [entry.cc_pair_id ?? 0, entry.permissions]));
  }

  it("carry permissions: what the requesting key may do to the pair", async () => {
    const mine = await createTestPair(app.db, { name: "Perm mine", access: "private" });
    const publicPair = await createTestPair(app.db, { name: "Perm public", access: "public" });
    const all = { edit: true, pause: true, delete: true };
    const none = { edit: false, pause: false, delete: false };

    const admin = await permissionsByPair(app.adminKey);
    expect(admin.get(mine)).toEqual(all);

    const curator = await permissionsByPair(await app.createKey("curator"));
    expect(curator.get(mine)).toEqual(none); // Pair routes need an admin key.

    const scoped = await permissionsByPair(await app.createKey("admin", [mine]));
    expect(scoped.get(mine)).toEqual(all);
    expect(scoped.get(publicPair)).toEqual(none); // Visible, but outside the scope.

    // A pair being deleted leaves the listing; nothing is offered on it any more.
    expect((await app.request("DELETE", `/api/manage/admin/cc-pair/${mine}`)).status).toBe(202);
    expect((await permissionsByPair(app.adminKey)).has(mine)).toBe(false);
  });

  it("accept interrupted as an attempt status", async () => {
    const response = await app.request("POST", INDEXING_STATUS, { body: { last_status_filters: ["interrupted"] } });
    expect(await answer(response)).toEqual({ status: 200, body: [] });
    const openapi = (await (await app.request("GET", "/api/openapi.json", { key: null })).json()) as {
      components: { schemas: Record<string, { enum?: string[] }> };
    };
    expect(openapi.components.schemas.IndexingStatus?.enum).toContain("interrupted");
    expect(openapi.components.schemas.ConnectorIndexingStatusLite).toMatchObject({ required: expect.arrayContaining(["permissions"]) as unknown });
  });
});

describe("every route answers the same with a trailing slash", () => {
  /** A request that has no side effect: unknown ids, and a body every JSON route refuses (an array). */
  function harmlessRequest(entry: RestEndpoint): { path: string; body?: unknown } {
    const path = `/api${entry.path}`.replace("{document_id}", "no-such-document").replace(/\{(id|cc_pair_id)\}/, "424242");
    return entry.body ? { path, body: entry.body.type === "json" ? [] : "not multipart" } : { path };
  }

  it("with the admin key and without a key", async () => {
    const entries = Object.values(REST_CONTRACT) as RestEndpoint[];
    expect(entries.length).toBeGreaterThan(15);
    // Readiness also needs a worker: stamp a heartbeat as a running worker does.
    await recordWorkerHeartbeat({ db: app.db, workerId: "dropin-test", hostname: "test", pid: process.pid, startedAt: new Date() });
    for (const entry of entries) {
      const { path, body } = harmlessRequest(entry);
      for (const key of [undefined, null]) {
        const plain = await app.request(entry.method, path, { body, key });
        const slashed = await app.request(entry.method, `${path}/`, { body, key });
        const label = `${entry.method} ${path} (${key === null ? "no key" : "admin"})`;
        // The metrics change between two scrapes (this very request is counted): their status is compared.
        const volatile = entry.path === "/metrics";
        const answer = async (response: Response) => {
          // An event stream's body never ends: its status and type are what is compared.
          if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
            await response.body?.cancel();
            return { status: response.status, body: "text/event-stream" };
          }
          return { status: response.status, body: volatile ? "" : await response.text() };
        };
        expect(await answer(slashed), label).toEqual(await answer(plain));
        expect(slashed.status, label).not.toBe(405);
        expect(slashed.status, label).toBeLessThan(500);
      }
    }
    // Nothing was paused, created or deleted along the way.
    expect(await app.db.indexGeneration.count({ where: { status: "building" } })).toBe(0);
  });
});
