// docs/decisions.md "Scoped keys": what belongs to no pair (federated connectors, the metrics'
// counts of every pair, the search index, API keys) is changed or read only by an admin key without
// scope. A scoped admin is refused on each, over REST and the console's tRPC; an unscoped admin succeeds.
import { createTestPair } from "@svc/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "./app";
import { expectTrpcError, signedIn, type Caller } from "./trpc/console";

const app = useTestApp();
const FEDERATED = "/api/manage/admin/federated-connector";
const REBUILD = "/api/manage/admin/search-index/rebuild";

let scopedAdminKey = "";
let scopedAdmin: Caller;
let admin: Caller;

beforeAll(async () => {
  const pair = await createTestPair(app.db, { name: "Team A wiki", access: "private" });
  scopedAdminKey = await app.createKey("admin", [pair]);
  scopedAdmin = (await signedIn(scopedAdminKey)).caller;
  admin = (await signedIn(app.adminKey)).caller;
});

describe("federated connectors", () => {
  it("a scoped admin neither creates nor deletes one, over REST", async () => {
    const created = await app.request("POST", FEDERATED, { body: { source: "federated_slack" } });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: number };

    expect((await app.request("POST", FEDERATED, { body: { source: "federated_slack" }, key: scopedAdminKey })).status).toBe(403);
    expect((await app.request("DELETE", `${FEDERATED}/${id}`, { key: scopedAdminKey })).status).toBe(403);
    expect(await app.db.federatedConnector.count({ where: { id } })).toBe(1);

    expect((await app.request("DELETE", `${FEDERATED}/${id}`)).status).toBe(200);
    expect(await app.db.federatedConnector.count({ where: { id } })).toBe(0);
  });

  it("a scoped admin neither creates nor deletes one in the console", async () => {
    const { id } = await admin.connectors.createFederated({ source: "federated_slack", name: "Team chat" });
    await expectTrpcError(scopedAdmin.connectors.createFederated({ source: "federated_slack" }), "FORBIDDEN");
    await expectTrpcError(scopedAdmin.connectors.deleteFederated({ id }), "FORBIDDEN");
    expect(await app.db.federatedConnector.count({ where: { id } })).toBe(1);
    expect(await admin.connectors.deleteFederated({ id })).toEqual({ id });
  });
});

describe("GET /api/metrics", () => {
  it("counts every pair, so a scoped admin key is refused", async () => {
    expect((await app.request("GET", "/api/metrics", { key: scopedAdminKey })).status).toBe(403);
    const response = await app.request("GET", "/api/metrics");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("# TYPE");
  });
});

describe("the index rebuild", () => {
  it("a scoped admin neither starts nor cancels it, over REST or in the console", async () => {
    expect((await app.request("POST", REBUILD, { key: scopedAdminKey })).status).toBe(403);
    await expectTrpcError(scopedAdmin.health.startRebuild({}), "FORBIDDEN");
    expect((await app.request("POST", REBUILD)).status).toBe(202);

    expect((await app.request("DELETE", REBUILD, { key: scopedAdminKey })).status).toBe(403);
    await expectTrpcError(scopedAdmin.health.cancelRebuild(), "FORBIDDEN");
    expect((await app.request("DELETE", REBUILD)).status).toBe(200);
  });
});

describe("API keys", () => {
  it("a scoped admin neither lists, creates nor revokes keys in the console", async () => {
    const created = await admin.keys.create({ name: "ci", role: "curator", scopeCcPairIds: [] });
    await expectTrpcError(scopedAdmin.keys.list(), "FORBIDDEN");
    await expectTrpcError(scopedAdmin.keys.create({ name: "wider", role: "admin", scopeCcPairIds: [] }), "FORBIDDEN");
    await expectTrpcError(scopedAdmin.keys.revoke({ id: created.id }), "FORBIDDEN");
    expect((await admin.keys.list()).map((key) => key.name)).toContain("ci");
    await admin.keys.revoke({ id: created.id });
    expect((await app.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).revokedAt).not.toBeNull();
  });
});
