// The OpenAPI document the production server publishes describes what it answers: every operation
// with a JSON success body is called over real HTTP on real data, and the body is validated against
// the schema the document declares for that status (issue 40: a client generated from the document
// must read the real answers). An operation the document adds without a call here fails the test.
import { recordWorkerHeartbeat } from "@svc/core";
import { indexTestDocuments, testIngestionBody } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { Ajv2020 } from "ajv/dist/2020";
import { beforeAll, describe, expect, it } from "vitest";
import { PNG, uploadForm } from "./factories";
import { useProductionServer } from "./production-server";

const app = useProductionServer();

type JsonObject = Record<string, unknown>;
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: JsonObject }> }> };
type OpenApi = { paths: Record<string, Record<string, Operation>>; components: JsonObject };

/** A served answer: the operation the call exercises, its status and JSON body. */
type Served = { operationId: string; status: number; body: unknown };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const served: Served[] = [];
let openApi: OpenApi;

/** Calls the API with the admin key and records the answer under the operation it exercises. */
async function call(operationId: string, method: string, path: string, body?: FormData | JsonObject): Promise<Served> {
  const answer = await send(operationId, method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  served.push(answer);
  return answer;
}

async function send(operationId: string, method: string, path: string, body?: FormData | JsonObject): Promise<Served> {
  const headers: Record<string, string> = { authorization: `Bearer ${app.adminKey}` };
  if (body !== undefined && !(body instanceof FormData)) headers["content-type"] = "application/json";
  const response = await fetch(`${app.base}/api${path}`, {
    method,
    headers,
    body: body instanceof FormData || body === undefined ? body : JSON.stringify(body),
  });
  expect(response.headers.get("content-type"), `${method} ${path}`).toMatch(/^application\/json/);
  return { operationId, status: response.status, body: (await response.json()) as unknown };
}

function operationsOf(document: OpenApi): Operation[] {
  return Object.values(document.paths).flatMap((methods) => Object.values(methods));
}

/** The operations of the document that answer a JSON body on success. */
function jsonSuccessOperations(document: OpenApi): string[] {
  return operationsOf(document)
    .filter((operation) =>
      Object.entries(operation.responses).some(([status, response]) => status.startsWith("2") && response.content?.["application/json"]),
    )
    .map((operation) => operation.operationId);
}

function declaredSchema(document: OpenApi, operationId: string, status: number): JsonObject | undefined {
  const operation = operationsOf(document).find((candidate) => candidate.operationId === operationId);
  return operation?.responses[String(status)]?.content?.["application/json"]?.schema;
}

beforeAll(async () => {
  openApi = (await (await fetch(`${app.base}/api/openapi.json`)).json()) as OpenApi;
  const db = app.database.db;
  await recordWorkerHeartbeat({ db, workerId: "openapi-check", hostname: "test", pid: process.pid, startedAt: new Date() });

  await call("getHealth", "GET", "/health");
  await call("getServiceInstance", "GET", "/svc-api/instance");
  // Readiness answers 503 while a check misses its deadline (a busy test machine): its 200 is awaited.
  const ready = await waitFor("readiness", async () => {
    const answer = await send("getReadiness", "GET", "/ready");
    return answer.status === 200 ? answer : undefined;
  });
  served.push(ready);
  const pair = await call("createCcPair", "POST", "/manage/admin/cc-pair", { name: "Checked", source: "web", access_type: "public" });
  const pairId = (pair.body as { cc_pair_id: number }).cc_pair_id;
  await call("getCcPair", "GET", `/manage/admin/cc-pair/${pairId}`);
  await call("updateCcPair", "PATCH", `/manage/admin/cc-pair/${pairId}`, { name: "Checked wiki" });
  await call("setCcPairStatus", "PUT", `/manage/admin/cc-pair/${pairId}/status`, { status: "ACTIVE" });

  await call("uploadUserFiles", "POST", "/user/file/upload", uploadForm(["older.png", PNG]));
  const snapshot = await call("uploadProjectFiles", "POST", "/user/projects/file/upload", uploadForm(["newer.png", PNG]));
  const [image] = (snapshot.body as { user_files: { id: string }[] }).user_files;
  expect(image?.id).toMatch(UUID);
  const spare = await call("uploadProjectFiles", "POST", "/user/projects/file/upload", uploadForm(["spare.png", PNG]));
  await call("deleteUserFile", "DELETE", `/user/file/${(spare.body as { user_files: { file_id: string }[] }).user_files[0]?.file_id}`);

  const sections = [{ text: "a caption" }, { image_file_id: image?.id, link: "https://example.com/image" }];
  const withImage = testIngestionBody({ id: "checked/image", ccPairId: pairId });
  await call("upsertIngestionDocument", "POST", "/svc-api/ingestion", { ...withImage, document: { ...withImage.document, sections } });
  await call("upsertIngestionDocument", "POST", "/svc-api/ingestion", testIngestionBody({ id: "checked/text", ccPairId: pairId, fields: { doc_updated_at: "2024-05-01" } }));
  await call("ingestDocumentBatch", "POST", "/svc-api/ingestion/batch", {
    // The refused item's error is part of the answer's shape too.
    documents: [testIngestionBody({ id: "checked/batch" }), { document: { id: "checked/refused" } }],
  });
  // Write conditions: applied, ignored (`applied: false`), and the 409 of a stale `if_version`, alone and in a batch.
  await call("upsertIngestionDocument", "POST", "/svc-api/ingestion", { ...testIngestionBody({ id: "checked/text" }), if_version: 1 });
  await call("upsertIngestionDocument", "POST", "/svc-api/ingestion", {
    ...testIngestionBody({ id: "checked/text", fields: { doc_updated_at: "2020-01-01" } }),
    if_newer: true,
  });
  const stale = await send("upsertIngestionDocument", "POST", "/svc-api/ingestion", { ...testIngestionBody({ id: "checked/text" }), if_version: 1 });
  expect(stale).toMatchObject({ status: 409, body: { current_version: 2 } });
  served.push(stale);
  await call("ingestDocumentBatch", "POST", "/svc-api/ingestion/batch", {
    documents: [{ ...testIngestionBody({ id: "checked/text" }), if_version: 1 }, { ...testIngestionBody({ id: "checked/batch" }), if_newer: true }],
  });
  await indexTestDocuments(db, ["checked/image", "checked/text", "checked/batch"]);

  await call("listIngestedDocuments", "GET", "/svc-api/ingestion");
  await call("listIngestedDocuments", "GET", "/svc-api/ingestion?limit=1");
  await call("listCcPairDocuments", "GET", `/svc-api/connector-docs/${pairId}`);
  await call("listCcPairDocuments", "GET", `/svc-api/connector-docs/${pairId}?limit=1`);
  await call("getIngestionDocument", "GET", `/svc-api/ingestion/${encodeURIComponent("checked/image")}`);
  await call("searchDocuments", "POST", "/svc-api/search", { query: "text" });
  await call("getConnectorIndexingStatus", "POST", "/manage/admin/connector/indexing-status", { get_all_connectors: true });
  const federated = await call("createFederatedConnector", "POST", "/manage/admin/federated-connector", { source: "federated_slack", name: "Slack" });
  await call("deleteFederatedConnector", "DELETE", `/manage/admin/federated-connector/${(federated.body as { id: number }).id}`);
  await call("getIndexRebuildStatus", "GET", "/manage/admin/search-index/rebuild");
  await call("startIndexRebuild", "POST", "/manage/admin/search-index/rebuild", {});
  await call("cancelIndexRebuild", "DELETE", "/manage/admin/search-index/rebuild");
  // A public address literal: registering it resolves nothing; no worker runs here to send to it.
  const webhook = await call("createWebhook", "POST", "/manage/admin/webhook", { url: "https://93.184.216.34/hook", cc_pair_ids: [pairId] });
  const webhookId = (webhook.body as { id: number }).id;
  await call("listWebhooks", "GET", "/manage/admin/webhook");
  const delivery = await db.webhookDelivery.create({
    data: { endpointId: webhookId, eventId: 1n, eventType: "document.indexed", documentId: "checked/text", body: "{}", retryUntil: new Date(Date.now() + 3_600_000) },
  });
  await call("listWebhookDeliveries", "GET", `/manage/admin/webhook/${webhookId}/deliveries`);
  await call("resendWebhookDelivery", "POST", `/manage/admin/webhook/${webhookId}/deliveries/${delivery.id}/resend`);
  await call("deleteWebhook", "DELETE", `/manage/admin/webhook/${webhookId}`);
  await call("deleteIngestionDocument", "DELETE", `/svc-api/ingestion/${encodeURIComponent("checked/text")}`);
  await call("deleteCcPair", "DELETE", `/manage/admin/cc-pair/${pairId}`);
}, 120_000);

describe("the published OpenAPI document and the bodies served", () => {
  it("declares, for each success answered, a schema the served body satisfies", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat("uuid", UUID);
    ajv.addFormat("date-time", (text: string) => !Number.isNaN(Date.parse(text)));
    // The component schemas refer to each other as "#/components/schemas/…": checked as one root.
    for (const answer of served) {
      const schema = declaredSchema(openApi, answer.operationId, answer.status);
      expect(schema, `${answer.operationId} declares a JSON body for ${answer.status}`).toBeDefined();
      const validate = ajv.compile({ ...schema, components: openApi.components });
      const valid = validate(answer.body);
      expect(valid ? [] : validate.errors, `${answer.operationId} ${answer.status}: ${JSON.stringify(answer.body)}`).toEqual([]);
    }
  });

  it("exercises every operation the document gives a JSON success body", () => {
    const exercised = new Set(served.map((answer) => answer.operationId));
    expect(jsonSuccessOperations(openApi).filter((operationId) => !exercised.has(operationId))).toEqual([]);
  });

  it("declares document listings as a bare array, and serves one", () => {
    const listings = served.filter((answer) => ["listIngestedDocuments", "listCcPairDocuments"].includes(answer.operationId));
    expect(listings).toHaveLength(4);
    for (const listing of listings) {
      expect(Array.isArray(listing.body)).toBe(true);
      expect(declaredSchema(openApi, listing.operationId, 200)).toEqual({ type: "array", items: { $ref: "#/components/schemas/DocMinimalInfo" } });
    }
  });
});
