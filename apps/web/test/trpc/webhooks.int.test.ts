// The console's webhook procedures (the Webhooks page): the REST routes' core functions under the same
// rule. Admin keys only; a scoped admin sees, registers and resends only for its own pairs' endpoints
// (docs/decisions.md "Webhooks"). Deliveries are the worker's (apps/worker/src/webhooks.e2e.test.ts);
// here they are rows as it leaves them, so the page's two lists can be checked.
import { createTestPair } from "@svc/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "../app";
import { expectTrpcError, signedIn, type Caller } from "./console";

const app = useTestApp();
const PUBLIC_URL = "https://93.184.216.34/hooks";

let own = 0;
let other = 0;
let admin: Caller;
let scopedAdmin: Caller;
let curator: Caller;

beforeAll(async () => {
  own = await createTestPair(app.db, { name: "Console hooks own", access: "private" });
  other = await createTestPair(app.db, { name: "Console hooks other", access: "private" });
  admin = (await signedIn(app.adminKey)).caller;
  scopedAdmin = (await signedIn(await app.createKey("admin", [own]))).caller;
  curator = (await signedIn(await app.createKey("curator"))).caller;
});

/** A delivery row as the worker leaves it after its tries. */
async function insertDelivery(endpointId: number, eventId: number, state: { status: "pending" | "delivered" | "dead"; lastStatusCode: number | null; lastError: string | null }) {
  const row = await app.db.webhookDelivery.create({
    data: {
      endpointId,
      eventId: BigInt(eventId),
      eventType: "document.indexed",
      documentId: `doc-${eventId}`,
      body: "{}",
      retryUntil: new Date(Date.now() + 3_600_000),
      attempts: state.lastStatusCode === null && state.lastError === null ? 0 : 1,
      ...state,
    },
  });
  return Number(row.id);
}

describe("the console's webhook procedures", () => {
  it("creates (the secret in that answer only), lists and deletes endpoints", async () => {
    const created = await admin.webhooks.create({ url: `${PUBLIC_URL}/a`, ccPairIds: [own], eventTypes: ["document.indexed"] });
    expect(created).toMatchObject({ url: `${PUBLIC_URL}/a`, ccPairIds: [own], eventTypes: ["document.indexed"], secret: expect.stringMatching(/^whsec_/) as unknown });
    const listed = await admin.webhooks.list();
    expect(listed.find((endpoint) => endpoint.id === created.id)).toEqual({
      id: created.id,
      url: `${PUBLIC_URL}/a`,
      ccPairIds: [own],
      eventTypes: ["document.indexed"],
      createdAt: created.createdAt,
    });
    // REST sees the same endpoint.
    const rest = (await (await app.request("GET", "/api/manage/admin/webhook")).json()) as { id: number }[];
    expect(rest.map((endpoint) => endpoint.id)).toContain(created.id);
    expect(await admin.webhooks.delete({ endpointId: created.id })).toEqual({ ok: true });
    expect((await admin.webhooks.list()).map((endpoint) => endpoint.id)).not.toContain(created.id);
    await expectTrpcError(admin.webhooks.delete({ endpointId: created.id }), "NOT_FOUND");
  });

  it("refuses what REST refuses (its body checks, the address rule, unknown pairs)", async () => {
    await expectTrpcError(admin.webhooks.create({ url: "ftp://93.184.216.34/x", ccPairIds: null, eventTypes: null }), "BAD_REQUEST");
    // SVC_WEBHOOK_ALLOW_PRIVATE is unset: a loopback endpoint is refused.
    await expectTrpcError(admin.webhooks.create({ url: "http://127.0.0.1:9/x", ccPairIds: null, eventTypes: null }), "BAD_REQUEST");
    await expectTrpcError(admin.webhooks.create({ url: `${PUBLIC_URL}/x`, ccPairIds: [424242], eventTypes: null }), "BAD_REQUEST");
    await expectTrpcError(admin.webhooks.create({ url: `${PUBLIC_URL}/x`, ccPairIds: null, eventTypes: ["document.created"] }), "BAD_REQUEST");
    await expectTrpcError(admin.webhooks.create({ url: `${PUBLIC_URL}/x`, ccPairIds: [], eventTypes: null }), "BAD_REQUEST");
    await expectTrpcError(admin.webhooks.create({ url: `${PUBLIC_URL}/${"x".repeat(2_100)}`, ccPairIds: null, eventTypes: null }), "BAD_REQUEST");
    expect((await admin.webhooks.list()).map((endpoint) => endpoint.url)).toEqual([]);
  });

  it("shows a scoped admin its own pairs' endpoints only, and refuses curators", async () => {
    const ownEndpoint = await admin.webhooks.create({ url: `${PUBLIC_URL}/own`, ccPairIds: [own], eventTypes: null });
    const otherEndpoint = await admin.webhooks.create({ url: `${PUBLIC_URL}/other`, ccPairIds: [other], eventTypes: null });
    const everyPair = await admin.webhooks.create({ url: `${PUBLIC_URL}/every`, ccPairIds: null, eventTypes: null });
    const both = await admin.webhooks.create({ url: `${PUBLIC_URL}/both`, ccPairIds: [own, other], eventTypes: null });
    expect((await scopedAdmin.webhooks.list()).map((endpoint) => endpoint.id)).toEqual([ownEndpoint.id]);
    expect((await admin.webhooks.list()).map((endpoint) => endpoint.id)).toEqual(expect.arrayContaining([ownEndpoint.id, otherEndpoint.id, everyPair.id, both.id]));

    // Naming no pair, a scoped admin registers for its own; another's pair is refused.
    expect((await scopedAdmin.webhooks.create({ url: `${PUBLIC_URL}/mine`, ccPairIds: null, eventTypes: null })).ccPairIds).toEqual([own]);
    await expectTrpcError(scopedAdmin.webhooks.create({ url: `${PUBLIC_URL}/x`, ccPairIds: [other], eventTypes: null }), "FORBIDDEN");

    const otherDelivery = await insertDelivery(otherEndpoint.id, 1, { status: "dead", lastStatusCode: 500, lastError: "HTTP 500" });
    for (const endpoint of [otherEndpoint, everyPair, both]) {
      await expectTrpcError(scopedAdmin.webhooks.deliveries({ endpointId: endpoint.id }), "NOT_FOUND");
      await expectTrpcError(scopedAdmin.webhooks.delete({ endpointId: endpoint.id }), "NOT_FOUND");
    }
    await expectTrpcError(scopedAdmin.webhooks.resend({ endpointId: otherEndpoint.id, deliveryId: otherDelivery }), "NOT_FOUND");
    // A delivery named under an endpoint it is not of.
    await expectTrpcError(admin.webhooks.resend({ endpointId: ownEndpoint.id, deliveryId: otherDelivery }), "NOT_FOUND");

    await expectTrpcError(curator.webhooks.list(), "FORBIDDEN");
    await expectTrpcError(curator.webhooks.create({ url: `${PUBLIC_URL}/x`, ccPairIds: [own], eventTypes: null }), "FORBIDDEN");
    await expectTrpcError(curator.webhooks.deliveries({ endpointId: ownEndpoint.id }), "FORBIDDEN");
  });

  it("lists an endpoint's last deliveries or its failures, and resends one with the same event", async () => {
    const endpoint = await admin.webhooks.create({ url: `${PUBLIC_URL}/deliveries`, ccPairIds: [own], eventTypes: null });
    const delivered = await insertDelivery(endpoint.id, 11, { status: "delivered", lastStatusCode: 204, lastError: null });
    const retrying = await insertDelivery(endpoint.id, 12, { status: "pending", lastStatusCode: 500, lastError: "HTTP 500" });
    const queued = await insertDelivery(endpoint.id, 13, { status: "pending", lastStatusCode: null, lastError: null });
    const dead = await insertDelivery(endpoint.id, 14, { status: "dead", lastStatusCode: null, lastError: "timed out after 10000 ms" });

    const all = await scopedAdmin.webhooks.deliveries({ endpointId: endpoint.id });
    expect(all.map((delivery) => [delivery.id, delivery.eventId, delivery.status])).toEqual([
      [dead, "evt_14", "dead"],
      [queued, "evt_13", "pending"],
      [retrying, "evt_12", "pending"],
      [delivered, "evt_11", "delivered"],
    ]);
    const failures = await scopedAdmin.webhooks.deliveries({ endpointId: endpoint.id, failuresOnly: true });
    expect(failures.map((delivery) => [delivery.id, delivery.lastError])).toEqual([
      [dead, "timed out after 10000 ms"],
      [retrying, "HTTP 500"],
    ]);

    const resent = await scopedAdmin.webhooks.resend({ endpointId: endpoint.id, deliveryId: dead });
    expect(resent).toMatchObject({ id: dead, eventId: "evt_14", status: "pending", nextAttemptAt: expect.any(String) as unknown });
    // Waiting for its next try, it still shows its last failure.
    expect((await admin.webhooks.deliveries({ endpointId: endpoint.id, failuresOnly: true })).map((delivery) => [delivery.id, delivery.status])).toEqual([
      [dead, "pending"],
      [retrying, "pending"],
    ]);
    // One being sent right now (its lease runs) is not resent.
    await app.db.webhookDelivery.update({ where: { id: BigInt(retrying) }, data: { leasedUntil: new Date(Date.now() + 60_000) } });
    await expectTrpcError(admin.webhooks.resend({ endpointId: endpoint.id, deliveryId: retrying }), "CONFLICT");
  });
});
