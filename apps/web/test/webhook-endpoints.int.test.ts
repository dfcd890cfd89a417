// docs/decisions.md "Webhooks": registering, listing and deleting endpoints over REST, under the one
// access rule (scoped admin keys see and register only endpoints of their own pairs), and the address
// rule at registration (SVC_WEBHOOK_ALLOW_PRIVATE is unset here). Delivery itself is the worker's
// (apps/worker/src/webhooks.e2e.test.ts).
import { createTestPair } from "@svc/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "./app";

const app = useTestApp();
// A public address literal: registration resolves nothing, and no worker runs here to send to it.
const PUBLIC_URL = "https://93.184.216.34/hooks/svc";

let own = 0;
let other = 0;
let scopedAdmin = "";

beforeAll(async () => {
  own = await createTestPair(app.db, { name: "Webhook own", access: "private" });
  other = await createTestPair(app.db, { name: "Webhook other", access: "private" });
  scopedAdmin = await app.createKey("admin", [own]);
});

const register = (body: unknown, key?: string) => app.request("POST", "/api/manage/admin/webhook", { body, key });
const listed = async (key?: string) => {
  const response = await app.request("GET", "/api/manage/admin/webhook", { key });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: number; url: string; cc_pair_ids: number[] | null; event_types: string[] | null }[];
};

describe("webhook endpoints over REST", () => {
  it("registers an endpoint and shows its secret once, in the creation's answer", async () => {
    const response = await register({ url: PUBLIC_URL, event_types: ["document.indexed", "document.failed"] });
    expect(response.status).toBe(200);
    const created = (await response.json()) as Record<string, unknown>;
    expect(created).toMatchObject({ url: PUBLIC_URL, cc_pair_ids: null, event_types: ["document.indexed", "document.failed"] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const row = (await listed()).find((endpoint) => endpoint.id === created.id);
    expect(row).toEqual({ id: created.id, url: PUBLIC_URL, cc_pair_ids: null, event_types: ["document.indexed", "document.failed"], created_at: created.created_at });
  });

  it("refuses loopback, private and malformed URLs with a 400 and a bad body with a 422", async () => {
    for (const url of ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.0.0.7/hook", "http://[::1]/hook", "http://169.254.169.254/latest"]) {
      const response = await register({ url });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as { detail: string }).detail, url).toMatch(/loopback or private address; svc calls only public addresses unless SVC_WEBHOOK_ALLOW_PRIVATE is set/);
    }
    for (const url of ["ftp://example.com/x", "not a url", "https://user:pw@93.184.216.34/"]) {
      expect((await register({ url })).status, url).toBe(400);
    }
    expect((await register({ url: PUBLIC_URL, cc_pair_ids: [999_999] })).status).toBe(400);
    for (const body of [{}, { url: PUBLIC_URL, event_types: ["document.exploded"] }, { url: PUBLIC_URL, cc_pair_ids: [] }, { url: 7 }]) {
      const response = await register(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(((await response.json()) as { detail: unknown[] }).detail.length).toBeGreaterThan(0);
    }
  });

  it("lets a scoped admin key register and see only endpoints of its own pairs", async () => {
    const forOther = await register({ url: PUBLIC_URL, cc_pair_ids: [other] });
    expect(forOther.status).toBe(200);
    const otherId = ((await forOther.json()) as { id: number }).id;

    expect((await register({ url: PUBLIC_URL, cc_pair_ids: [own, other] }, scopedAdmin)).status).toBe(403);
    expect((await register({ url: PUBLIC_URL, cc_pair_ids: [other] }, scopedAdmin)).status).toBe(403);
    // Naming no pair registers for the key's own.
    const mine = await register({ url: PUBLIC_URL }, scopedAdmin);
    expect(mine.status).toBe(200);
    const mineBody = (await mine.json()) as { id: number; cc_pair_ids: number[] };
    expect(mineBody.cc_pair_ids).toEqual([own]);

    // It sees its own endpoint only: not another pair's, nor an endpoint of every pair.
    expect((await listed(scopedAdmin)).map((endpoint) => endpoint.id)).toEqual([mineBody.id]);
    expect((await listed()).map((endpoint) => endpoint.id)).toEqual(expect.arrayContaining([mineBody.id, otherId]));
    for (const path of [`/api/manage/admin/webhook/${otherId}`, `/api/manage/admin/webhook/${otherId}/deliveries`]) {
      const method = path.endsWith("deliveries") ? "GET" : "DELETE";
      const refused = await app.request(method, path, { key: scopedAdmin });
      expect(refused.status, path).toBe(404);
      expect(await refused.json()).toEqual({ detail: "No such webhook endpoint" });
    }
    expect((await app.request("POST", `/api/manage/admin/webhook/${otherId}/deliveries/1/resend`, { key: scopedAdmin })).status).toBe(404);

    const deleted = await app.request("DELETE", `/api/manage/admin/webhook/${mineBody.id}`, { key: scopedAdmin });
    expect(deleted.status).toBe(200);
    expect(await listed(scopedAdmin)).toEqual([]);
    expect((await app.request("DELETE", `/api/manage/admin/webhook/${mineBody.id}`)).status).toBe(404);
  });

  it("is for admin keys only", async () => {
    const curator = await app.createKey("curator");
    expect((await register({ url: PUBLIC_URL }, curator)).status).toBe(403);
    expect((await app.request("GET", "/api/manage/admin/webhook", { key: curator })).status).toBe(403);
    expect((await app.request("GET", "/api/manage/admin/webhook", { key: null })).status).toBe(401);
  });

  it("lists an endpoint's deliveries and resends one; an unknown delivery is a 404", async () => {
    const created = (await (await register({ url: PUBLIC_URL, cc_pair_ids: [own] })).json()) as { id: number };
    const delivery = await app.db.webhookDelivery.create({
      data: {
        endpointId: created.id,
        eventId: 41n,
        eventType: "document.deleted",
        documentId: "gone",
        body: "{}",
        status: "dead",
        attempts: 33,
        lastStatusCode: 503,
        lastError: "HTTP 503",
        finishedAt: new Date(),
        retryUntil: new Date(),
      },
    });
    const deliveries = await app.request("GET", `/api/manage/admin/webhook/${created.id}/deliveries`, { key: scopedAdmin });
    expect(deliveries.status).toBe(200);
    expect(await deliveries.json()).toEqual([
      expect.objectContaining({ id: Number(delivery.id), event_id: "evt_41", event_type: "document.deleted", status: "dead", attempts: 33, last_status_code: 503, next_attempt_at: null }),
    ]);
    const resent = await app.request("POST", `/api/manage/admin/webhook/${created.id}/deliveries/${delivery.id}/resend`, { key: scopedAdmin });
    expect(resent.status).toBe(200);
    expect(await resent.json()).toMatchObject({ id: Number(delivery.id), status: "pending", event_id: "evt_41" });
    const row = await app.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row.retryUntil.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect((await app.request("POST", `/api/manage/admin/webhook/${created.id}/deliveries/${delivery.id + 1000n}/resend`)).status).toBe(404);
  });
});
