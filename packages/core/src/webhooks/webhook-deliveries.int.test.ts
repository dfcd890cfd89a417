// docs/decisions.md "Webhooks": the fan-out's bound. Past SVC_WEBHOOK_QUEUE_BOUND pending deliveries,
// an endpoint's new event for a document replaces the pending ones of that document (the newest kept),
// so a receiver that is down holds about one delivery per document, however often each changes. No
// sender runs here: deliveries stay pending.
import { withSqlTransaction } from "@svc/db";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { createTestPair } from "../testing/factories";
import { createWebhookEndpoint } from "./manage-webhook-endpoints";
import { fanOutWebhookEvents, purgeFinishedWebhookDeliveries } from "./webhook-deliveries";

const { db } = await useTestJobQueue();

async function writeEvents(documentIds: string[], ccPairId: number): Promise<void> {
  for (const documentId of documentIds) {
    await db.$executeRaw`INSERT INTO svc_event (type, document_id, cc_pair_ids, version, status)
      VALUES ('document.indexed', ${documentId}, ARRAY[${ccPairId}]::int[], 1, 'indexed')`;
  }
}

describe("the webhook fan-out's bound per endpoint", () => {
  it("queues every event up to the bound, then keeps only each document's newest pending delivery", async () => {
    const pair = await createTestPair(db, { name: "Bound" });
    const endpoint = await createWebhookEndpoint({
      db,
      principal: OPERATOR_PRINCIPAL,
      url: "https://93.184.216.34/down",
      ccPairIds: [pair],
      eventTypes: null,
      allowPrivate: false,
    });
    const pending = async () =>
      (await db.webhookDelivery.findMany({ where: { endpointId: endpoint.id, status: "pending" }, orderBy: { id: "asc" } })).map(
        (row) => `${row.documentId} ${row.eventId}`,
      );
    // Every committed event is fanned out: the cursor's snapshot saw each one's transaction.
    const drain = () =>
      waitFor("every event fanned out", async () => {
        await fanOutWebhookEvents(db, { queueBound: 3 });
        const [left] = await db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM svc_event e, webhook_cursor c WHERE NOT pg_visible_in_snapshot(e.tx_id, c.fanned_snapshot)`;
        return left?.n === 0 ? true : undefined;
      });

    await writeEvents(["a", "b", "a"], pair);
    await drain();
    // Within the bound: all three, "a" twice.
    const [a1, b1, a2] = (await pending()).map((line) => line.split(" ")[1]);
    expect(await pending()).toEqual([`a ${a1}`, `b ${b1}`, `a ${a2}`]);

    // Past it: a new event of "a" replaces both pending ones of "a"; "c" (a document with none) is added.
    await writeEvents(["a", "c", "c", "b"], pair);
    await drain();
    const after = await pending();
    expect(after.map((line) => line.split(" ")[0]).sort()).toEqual(["a", "b", "c"]);
    const newest = await db.$queryRaw<{ document_id: string; event_id: bigint }[]>`
      SELECT document_id, max(id) AS event_id FROM svc_event GROUP BY document_id`;
    for (const { document_id, event_id } of newest) expect(after).toContain(`${document_id} ${event_id}`);
    // Fanned out once: the cursor moved past every event.
    expect(await fanOutWebhookEvents(db, { queueBound: 3 })).toBe(0);
  });
});

describe("the webhook fan-out's cursor (a snapshot, not the oldest running transaction)", () => {
  /** A transaction that stays open until `end()`; `run` is its first statement. */
  function openTransaction(run: string) {
    let end = () => {};
    const ended = new Promise<void>((resolve) => (end = resolve));
    let started = () => {};
    const ready = new Promise<void>((resolve) => (started = resolve));
    const done = withSqlTransaction(db, async (sql) => {
      await sql.query(run);
      started();
      await ended;
    });
    return { ready, end: async () => (end(), await done) };
  }

  async function deliveredEvents(endpointId: number): Promise<string[]> {
    const rows = await db.webhookDelivery.findMany({ where: { endpointId }, orderBy: { id: "asc" } });
    return rows.map((row) => row.documentId ?? "");
  }

  async function endpointFor(name: string) {
    const pair = await createTestPair(db, { name });
    const endpoint = await createWebhookEndpoint({ db, principal: OPERATOR_PRINCIPAL, url: "https://93.184.216.34/hook", ccPairIds: [pair], eventTypes: null, allowPrivate: false });
    return { pair, endpointId: endpoint.id };
  }

  const fanOutAll = async (batchSize = 500) => {
    while ((await fanOutWebhookEvents(db, { queueBound: 1_000, batchSize })) > 0);
  };

  it("fans an event out as soon as it commits, while an older transaction is still open", async () => {
    const { pair, endpointId } = await endpointFor("Older transaction");
    await fanOutAll();
    const older = openTransaction("SELECT pg_current_xact_id()");
    await older.ready;
    try {
      await writeEvents(["now"], pair);
      await fanOutAll();
      expect(await deliveredEvents(endpointId)).toEqual(["now"]);
    } finally {
      await older.end();
    }
  });

  it("fans out an event whose transaction commits after a fan-out in the next one, once", async () => {
    const { pair, endpointId } = await endpointFor("Late commit");
    const late = openTransaction(`INSERT INTO svc_event (type, document_id, cc_pair_ids, version, status) VALUES ('document.indexed', 'late', ARRAY[${pair}]::int[], 1, 'indexed')`);
    await late.ready;
    await writeEvents(["early"], pair);
    await fanOutAll();
    expect(await deliveredEvents(endpointId)).toEqual(["early"]);
    await late.end();
    await fanOutAll();
    await fanOutAll();
    expect(await deliveredEvents(endpointId)).toEqual(["early", "late"]);
  });

  it("works through many events in batches, each fanned out once", async () => {
    const { pair, endpointId } = await endpointFor("Batches");
    const ids = ["b1", "b2", "b3", "b4", "b5"];
    await writeEvents(ids, pair);
    await fanOutAll(2);
    expect(await deliveredEvents(endpointId)).toEqual(ids);
  });
});

describe("the hourly purge of webhook deliveries", () => {
  it("makes dead a delivery whose retry window ended untried (its endpoint held to probes), and deletes those ended past the retention", async () => {
    const pair = await createTestPair(db, { name: "Purge" });
    const { id: endpointId } = await createWebhookEndpoint({ db, principal: OPERATOR_PRINCIPAL, url: "https://93.184.216.34/purge", ccPairIds: [pair], eventTypes: null, allowPrivate: false });
    const delivery = (documentId: string, fields: Record<string, unknown>) =>
      db.webhookDelivery.create({ data: { endpointId, eventId: 1n, eventType: "document.indexed", documentId, body: "{}", retryUntil: new Date(Date.now() + 3_600_000), ...fields } });
    const expired = await delivery("expired", { retryUntil: new Date(Date.now() - 1_000) });
    const waiting = await delivery("waiting", {});
    const sending = await delivery("sending", { retryUntil: new Date(Date.now() - 1_000), leasedUntil: new Date(Date.now() + 60_000) });
    const old = await delivery("old", { status: "delivered", finishedAt: new Date(Date.now() - 2 * 3_600_000) });

    expect(await purgeFinishedWebhookDeliveries(db, 1)).toBe(1);
    const rows = new Map((await db.webhookDelivery.findMany({ where: { endpointId } })).map((row) => [row.id, row]));
    expect(rows.get(expired.id)).toMatchObject({ status: "dead", attempts: 0, lastError: "Not delivered within its retry window: the endpoint kept failing" });
    expect(rows.get(expired.id)?.finishedAt).not.toBeNull();
    expect(rows.get(waiting.id)).toMatchObject({ status: "pending" });
    // Being tried now: that try decides.
    expect(rows.get(sending.id)).toMatchObject({ status: "pending" });
    expect(rows.has(old.id)).toBe(false);
  });
});
