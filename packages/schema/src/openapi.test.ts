import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";
import { REST_CONTRACT, type RestEndpoint } from "./rest-contract";

/** Every `$ref` anywhere in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === "$ref" && typeof child === "string" ? [child] : refsIn(child),
  );
}

describe("buildOpenApiDocument", () => {
  const document = buildOpenApiDocument();

  it("is an OpenAPI 3.1 document labelled Development, served under /api", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("Development");
    expect(document.servers).toEqual([{ url: "/api" }]);
    expect(buildOpenApiDocument({ serverUrl: "https://svc.example.com/api" }).servers).toEqual([
      { url: "https://svc.example.com/api" },
    ]);
  });

  it("describes every operation of the REST contract, each behind BearerAuth but the public ones", () => {
    const documented = Object.values(REST_CONTRACT).filter((entry: RestEndpoint) => !entry.undocumented);
    expect(Object.keys(document.paths).sort()).toEqual([...new Set(documented.map((entry) => entry.path))].sort());
    for (const entry of documented) expect(document.paths[entry.path]).toHaveProperty(entry.method.toLowerCase());
    expect(document.components.securitySchemes.BearerAuth).toEqual({ type: "http", scheme: "bearer" });
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    expect(operations).toHaveLength(documented.length);
    for (const entry of documented) {
      const operation = document.paths[entry.path]?.[entry.method.toLowerCase() as "get"];
      // An empty list overrides the document's default: no key (the probes of "Bulk ingestion, operations, client").
      expect(operation?.security, entry.path).toEqual(entry.auth === "public" ? [] : [{ BearerAuth: [] }]);
    }
  });

  it("describes webhook registration: the secret only in the creation's answer", () => {
    expect(refsIn(document.paths["/manage/admin/webhook"]?.post).filter((ref) => ref.includes("Webhook"))).toEqual([
      "#/components/schemas/CreateWebhookRequest",
      "#/components/schemas/CreatedWebhookEndpoint",
    ]);
    expect((document.components.schemas.CreatedWebhookEndpoint as { required: string[] }).required).toContain("secret");
    expect(JSON.stringify(document.components.schemas.WebhookEndpoint)).not.toContain("secret");
    expect(Object.keys(document.paths["/manage/admin/webhook/{id}/deliveries/{delivery_id}/resend"]?.post?.responses ?? {}).sort()).toEqual([
      "200", "401", "403", "404", "409", "422", "429",
    ]);
  });

  it("describes the liveness and readiness probes, keyless, with their 200 and 503 bodies", () => {
    expect(refsIn(document.paths["/health"])).toEqual(["#/components/schemas/ServiceStatus"]);
    expect(Object.keys(document.paths["/ready"]?.get?.responses ?? {}).sort()).toEqual(["200", "503"]);
    expect(document.components.schemas.ServiceStatus).toMatchObject({ required: ["status", "checks"] });
  });

  it("describes the connector management operations with their path parameter and statuses", () => {
    const pairPath = document.paths["/manage/admin/cc-pair/{id}"] ?? {};
    expect(Object.keys(pairPath).sort()).toEqual(["delete", "get", "patch"]);
    for (const operation of Object.values(pairPath)) {
      expect(operation.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })]);
    }
    expect(Object.keys(pairPath.delete?.responses ?? {})).toContain("202");
    expect(refsIn(document.paths["/manage/admin/cc-pair"])).toEqual(
      expect.arrayContaining(["#/components/schemas/CreateCcPairRequest", "#/components/schemas/CreatedCcPair"]),
    );
    expect(document.components.schemas.UpdateCcPairRequest).not.toHaveProperty("required");
    expect(document.components.schemas.SettableCcPairStatus).toMatchObject({ enum: ["ACTIVE", "PAUSED"] });
    expect(document.components.schemas.CreateFederatedConnectorRequest).toMatchObject({ required: ["source"] });
    expect(document.components.schemas.FederatedConnectorStatus).toMatchObject({
      properties: { source: { $ref: "#/components/schemas/FederatedConnectorSource" } },
    });
  });

  it("gives each operation its bodies and error statuses", () => {
    const responses = (path: string) => Object.keys(document.paths[path]?.post?.responses ?? {}).sort();
    expect(responses("/svc-api/ingestion")).toEqual(["200", "400", "401", "403", "409", "413", "422", "429"]);
    expect(responses("/manage/admin/connector/indexing-status")).toEqual(["200", "400", "401", "403", "422", "429"]);
    expect(responses("/user/file/upload")).toEqual(["200", "401", "403", "413", "422", "429"]);
    expect(responses("/svc-api/search")).toEqual(["200", "400", "401", "403", "413", "422", "429", "503"]);
    // A JSON body that is not UTF-8 is a 400 wherever a JSON body is taken, beside an entry's own 400.
    const badRequest = (path: string) => (document.paths[path]?.post?.responses as Record<string, unknown> | undefined)?.["400"];
    expect(badRequest("/svc-api/search")).toMatchObject({ description: "The body is not UTF-8" });
    expect(badRequest("/svc-api/ingestion")).toMatchObject({
      description: "The connector-credential pair does not exist; or the body is not UTF-8",
    });
    expect(document.components.schemas.SearchRequest).toMatchObject({ required: ["query"] });

    expect(refsIn(document.paths["/svc-api/ingestion"])).toEqual(
      expect.arrayContaining([
        "#/components/schemas/IngestionDocument",
        "#/components/schemas/IngestionResult",
        "#/components/schemas/IngestionConflict",
        "#/components/schemas/ErrorDetail",
        "#/components/schemas/HTTPValidationError",
      ]),
    );
    // Write conditions (docs/decisions.md "Conditional writes"): optional, so the original's bodies stay valid.
    expect(document.components.schemas.IngestionDocument).toMatchObject({
      required: ["document"],
      properties: { if_version: { anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }] }, if_newer: { type: ["boolean", "null"] } },
    });
    expect(document.components.schemas.IngestionResult).toMatchObject({
      required: ["document_id", "already_existed"],
      properties: { applied: { type: "boolean" } },
    });
    expect(document.components.schemas.IngestionConflict).toMatchObject({
      required: ["detail"],
      properties: { current_version: { type: ["integer", "null"] } },
    });
    const upload = document.paths["/user/file/upload"]?.post as { requestBody: { content: Record<string, unknown> } };
    expect(Object.keys(upload.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(document.components.schemas.FileUploadRequest).toMatchObject({
      properties: { files: { type: "array", items: { type: "string", format: "binary" } } },
    });
  });

  it("describes the search-index rebuild operations", () => {
    const rebuild = document.paths["/manage/admin/search-index/rebuild"] ?? {};
    expect(Object.keys(rebuild).sort()).toEqual(["delete", "get", "post"]);
    expect(Object.keys(rebuild.post?.responses ?? {}).sort()).toEqual(["202", "400", "401", "403", "409", "413", "422", "429"]);
    expect(rebuild.post?.requestBody).toMatchObject({ required: false });
    expect(refsIn(rebuild)).toEqual(
      expect.arrayContaining(["#/components/schemas/IndexRebuildRequest", "#/components/schemas/IndexRebuildStatus"]),
    );
    expect(document.components.schemas.IndexRebuildRequest).not.toHaveProperty("required");
    expect(document.components.schemas.IndexRebuildStatus).toMatchObject({
      required: expect.arrayContaining(["status", "current", "rebuild", "last_rebuild"]) as unknown,
    });
  });

  it("describes the per-document operations", () => {
    const single = document.paths["/svc-api/ingestion/{document_id}"] ?? {};
    expect(Object.keys(single).sort()).toEqual(["delete", "get"]);
    expect(Object.keys(single.get?.responses ?? {}).sort()).toEqual(["200", "401", "403", "404", "429"]);
    expect(Object.keys(single.delete?.responses ?? {}).sort()).toEqual(["200", "400", "401", "403", "404", "429"]);
    expect(refsIn(single)).toEqual(
      expect.arrayContaining(["#/components/schemas/DocumentDetail", "#/components/schemas/DeletedDocument"]),
    );
    const listing = document.paths["/svc-api/ingestion"]?.get;
    const pairListing = document.paths["/svc-api/connector-docs/{cc_pair_id}"]?.get;
    expect(listing?.parameters).toEqual([
      expect.objectContaining({ name: "limit", in: "query" }),
      expect.objectContaining({ name: "cursor", in: "query" }),
    ]);
    expect((pairListing?.parameters as unknown[])[0]).toMatchObject({ name: "cc_pair_id", in: "path" });
    // A bare array (the original's list[DocMinimalInfo]); a page says where the next is in Link.
    // Declared inline, as the original's OpenAPI does: no named list component a client would wrap.
    for (const list of [listing, pairListing]) {
      expect(list?.responses).toMatchObject({
        200: { content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/DocMinimalInfo" } } } } },
      });
    }
    expect(document.components.schemas).not.toHaveProperty("DocMinimalInfoList");
    expect(listing?.responses).toMatchObject({ 200: { headers: { Link: { schema: { type: "string" } } } } });
    expect(document.components.schemas.DeletedDocument).toMatchObject({ type: "null" });
    expect(document.components.schemas.DocumentIndexingStatus).toMatchObject({ enum: ["queued", "indexing", "indexed", "failed"] });
    expect(document.components.schemas.DocumentDetail).toMatchObject({
      required: expect.arrayContaining(["indexing_status", "current_version", "cc_pair_ids"]) as unknown,
    });
  });

  it("describes the drop-in routes: pair status, the projects upload path", () => {
    const status = document.paths["/manage/admin/cc-pair/{id}/status"]?.put;
    expect(refsIn(status)).toEqual(
      expect.arrayContaining(["#/components/schemas/CCStatusUpdateRequest", "#/components/schemas/CcPair"]),
    );
    expect(document.components.schemas.CCStatusUpdateRequest).toMatchObject({ required: ["status"] });
    const projects = document.paths["/user/projects/file/upload"]?.post;
    expect(refsIn(projects)).toContain("#/components/schemas/CategorizedFilesSnapshot");
    expect(document.components.schemas.UserFileSnapshot).toMatchObject({
      required: expect.arrayContaining(["id", "temp_id", "file_id", "status", "chat_file_type", "token_count"]) as unknown,
    });
    expect(refsIn(document.components.schemas.FederatedConnectorStatus)).toContain("#/components/schemas/FederatedConnectorSource");
  });

  it("points every $ref at a component that exists", () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas).toHaveProperty(ref.replace("#/components/schemas/", ""));
    }
  });

  it("describes requests as clients send them", () => {
    const documentBase = document.components.schemas.DocumentBase as {
      required: string[];
      properties: Record<string, Record<string, unknown>>;
    };
    expect(documentBase.required.sort()).toEqual(["metadata", "sections", "semantic_identifier"]);
    expect(documentBase.properties.doc_updated_at).toEqual({ anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] });
    expect(documentBase.properties.from_ingestion_api).toEqual({ type: "boolean", default: false });
    expect(document.components.schemas.IndexingStatusRequest).not.toHaveProperty("required");
    expect(document.components.schemas.ExternalAccess).toMatchObject({
      properties: { external_user_emails: { type: "array", uniqueItems: true } },
    });
  });

  it("lists the 55 sources once", () => {
    expect((document.components.schemas.DocumentSource as { enum: string[] }).enum).toHaveLength(55);
  });

  it("carries no JSON Schema document headers inside components", () => {
    for (const schema of Object.values(document.components.schemas)) {
      expect(schema).not.toHaveProperty("$schema");
      expect(schema).not.toHaveProperty("$id");
    }
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});
