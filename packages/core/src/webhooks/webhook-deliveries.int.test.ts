// docs/decisions.md "Webhooks": the fan-out's bound. Past SVC_WEBHOOK_QUEUE_BOUND pending deliveries,
// an endpoint's new event for a document replaces the pending ones of that document (the newest kept),
// so a receiver that is down holds about one delivery per document, however often each changes. No
// sender runs here: deliveries stay pending.
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { createTestPair } from "../testing/factories";
import { createWebhookEndpoint } from "./manage-webhook-endpoints";
import { fanOutWebhookEvents } from "./webhook-deliveries";

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
    // Events are fanned out once final: once every transaction older than theirs ended, on the whole server.
    const drain = () =>
      waitFor("every event fanned out", async () => {
        await fanOutWebhookEvents(db, { queueBound: 3 });
        const [left] = await db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM svc_event e, webhook_cursor c WHERE (e.tx_id, e.id) > (c.tx_id, c.event_id)`;
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
