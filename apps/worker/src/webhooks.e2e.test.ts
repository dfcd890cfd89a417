// docs/decisions.md "Webhooks": the worker sends each event of the outbox to the endpoints it matches,
// signed, at least once with a stable id. A real node:http receiver checks every signature with the
// endpoint's secret (its own HMAC, per the Standard Webhooks scheme). The receiver is on loopback, so
// the worker runs with SVC_WEBHOOK_ALLOW_PRIVATE set and endpoints are registered with it allowed.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookEndpoint, deleteDocument, OPERATOR_PRINCIPAL, startIndexRebuild } from "@svc/core";
import { createTestPair, ingestTestDocument, installPoisonTrigger, POISON, testSearchIndex, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import type { EventType, SvcEvent } from "@svc/schema";
import { waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useWorkerProcess, type WorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);
const WORKER_ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: "1", SVC_WEBHOOK_TIMEOUT_MS: "10000" };

interface Received {
  /** When it arrived (Date.now()). */
  at: number;
  path: string;
  id: string;
  signed: boolean;
  event: SvcEvent;
}

const received: Received[] = [];
const secrets = new Map<string, string>();
/** Paths answering 500 to an event's first request, and paths never answering it. */
const failFirst = new Set<string>();
const hangFirst = new Set<string>();
/** Paths answering 503 to every request while listed (a receiver that is down). */
const down = new Set<string>();
const hanging: http.ServerResponse[] = [];

function signatureValid(secret: string, headers: http.IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${String(headers["webhook-id"])}.${String(headers["webhook-timestamp"])}.${body}`).digest("base64");
  return String(headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

const receiver = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    const path = request.url ?? "";
    const id = String(request.headers["webhook-id"]);
    const first = !received.some((entry) => entry.path === path && entry.id === id);
    received.push({ at: Date.now(), path, id, signed: signatureValid(secrets.get(path) ?? "", request.headers, body), event: JSON.parse(body) as SvcEvent });
    if (down.has(path)) response.writeHead(503).end();
    else if (first && hangFirst.has(path)) hanging.push(response);
    else response.writeHead(first && failFirst.has(path) ? 500 : 200).end();
  });
});
let base = "";

async function register(path: string, filters: { ccPairIds?: number[]; eventTypes?: EventType[] } = {}): Promise<number> {
  const endpoint = await createWebhookEndpoint({
    db,
    principal: OPERATOR_PRINCIPAL,
    url: `${base}${path}`,
    ccPairIds: filters.ccPairIds ?? null,
    eventTypes: filters.eventTypes ?? null,
    allowPrivate: true,
  });
  secrets.set(path, endpoint.secret);
  return endpoint.id;
}

const at = (path: string) => received.filter((entry) => entry.path === path);
const summary = (path: string) => at(path).map(({ event }) => `${event.type} ${event.document_id ?? event.cc_pair_ids.join(",")}`);

let worker: WorkerProcess;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await installPoisonTrigger(db);
  worker = startWorker(WORKER_ENV);
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

describe("webhook deliveries from the worker", () => {
  it("delivers every event type once per change, signed, to the endpoints whose pairs and types match", async () => {
    const pairA = await createTestPair(db, { name: "Hooks A" });
    const pairB = await createTestPair(db, { name: "Hooks B" });
    const pairPoison = await createTestPair(db, { name: "Hooks poison" });
    await register("/all");
    await register("/pair-b-indexed", { ccPairIds: [pairB], eventTypes: ["document.indexed"] });
    await register("/deleted-flaky", { eventTypes: ["document.deleted"] });
    failFirst.add("/deleted-flaky");

    await ingestTestDocument(queue, { id: "hook-a", text: "alpha text", ccPairId: pairA });
    await ingestTestDocument(queue, { id: "hook-b", text: "beta text", ccPairId: pairB });
    // A batch that fails rolls back: its document is never said to be indexed, only failed.
    await ingestTestDocument(queue, { id: "hook-poison", text: `a ${POISON} here`, ccPairId: pairPoison });
    await waitForIndexed(db, ["hook-a", "hook-b"], { describe: worker.output });
    await deleteDocument({ db, index: testSearchIndex(), principal: OPERATOR_PRINCIPAL, documentId: "hook-a" });
    await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });

    const expected = [
      "document.indexed hook-a",
      "document.indexed hook-b",
      "document.failed hook-poison",
      "document.deleted hook-a",
      `attempt.finished ${pairA}`,
      `attempt.finished ${pairB}`,
      "rebuild.finished ",
    ];
    await waitFor(
      "every event at /all",
      () => (expected.every((line) => summary("/all").includes(line)) ? true : undefined),
      { timeoutMs: 60_000, describe: () => `${JSON.stringify(summary("/all"))}\n${worker.output()}` },
    );
    const all = at("/all");
    expect(all.every((entry) => entry.signed)).toBe(true);
    expect(all.every((entry) => entry.event.id === entry.id && /^evt_\d+$/.test(entry.id))).toBe(true);
    // Once per change: no event twice, and none of the rolled-back indexing of the poisoned document.
    expect(all.map((entry) => `${entry.id} ${entry.event.type} ${entry.event.document_id ?? ""}`).filter((line, index, lines) => lines.indexOf(line) !== index)).toEqual([]);
    expect(summary("/all").filter((line) => line === "document.indexed hook-a")).toHaveLength(1);
    expect(summary("/all")).not.toContain("document.indexed hook-poison");
    const indexed = all.find((entry) => entry.event.type === "document.indexed" && entry.event.document_id === "hook-a")?.event;
    expect(indexed).toMatchObject({ cc_pair_ids: [pairA], version: 1, status: "indexed", error: null, counts: null });
    expect(Date.parse(indexed?.time ?? "")).toBeGreaterThan(Date.now() - 120_000);
    const failed = all.find((entry) => entry.event.type === "document.failed")?.event;
    expect(failed).toMatchObject({ document_id: "hook-poison", cc_pair_ids: [pairPoison], status: "failed" });
    expect(failed?.error).toContain("chunk rejected");
    expect(all.find((entry) => entry.event.type === "attempt.finished" && entry.event.cc_pair_ids[0] === pairB)?.event).toMatchObject({
      status: "success",
      counts: { docs_indexed: 1, docs_failed: 0 },
    });
    expect(all.find((entry) => entry.event.type === "rebuild.finished")?.event).toMatchObject({ status: "completed", cc_pair_ids: [], document_id: null });

    // The filtered endpoint gets pair B's document.indexed only, whatever else happened.
    await waitFor("pair B's event delivered", () => (at("/pair-b-indexed").length > 0 ? true : undefined));
    expect(summary("/pair-b-indexed")).toEqual(["document.indexed hook-b"]);
    expect(at("/pair-b-indexed")[0]).toMatchObject({ signed: true, event: { cc_pair_ids: [pairB] } });

    // A receiver answering 500 then 200 gets the same event again (5 s later), same id and body.
    await waitFor("the deletion redelivered after a 500", () => (at("/deleted-flaky").length >= 2 ? true : undefined), { timeoutMs: 30_000, describe: worker.output });
    const [firstTry, secondTry] = at("/deleted-flaky");
    expect(firstTry?.id).toBe(secondTry?.id);
    expect(secondTry?.event).toEqual(firstTry?.event);
    expect(secondTry).toMatchObject({ signed: true, event: { type: "document.deleted", document_id: "hook-a", cc_pair_ids: [pairA] } });
    const flaky = await waitFor("the redelivery recorded", async () => {
      const rows = await db.webhookDelivery.findMany({ where: { endpoint: { url: `${base}/deleted-flaky` } } });
      return rows[0]?.status === "delivered" ? rows : undefined;
    });
    expect(flaky).toEqual([expect.objectContaining({ status: "delivered", attempts: 2, lastStatusCode: 200, lastError: null })]);
    // Every delivery to /all went through at its first try: nothing is pending or sent twice.
    const toAll = await db.webhookDelivery.findMany({ where: { endpoint: { url: `${base}/all` } } });
    expect(toAll.filter((row) => row.status !== "delivered" || row.attempts !== 1)).toEqual([]);
  }, 120_000);

  it("sends later events while an earlier transaction is still open, and nothing of it when it rolls back", async () => {
    const pair = await createTestPair(db, { name: "Hooks rollback" });
    await register("/rollback", { ccPairIds: [pair] });
    let release: (outcome: "commit" | "rollback") => void = () => undefined;
    const decided = new Promise<"commit" | "rollback">((resolve) => (release = resolve));
    const transaction = (documentId: string) =>
      db
        .$transaction(
          async (tx) => {
            // As the outbox's writer does, in the transaction of the change it tells.
            await tx.$executeRaw`INSERT INTO svc_event (type, document_id, cc_pair_ids, status) VALUES ('document.deleted', ${documentId}, ARRAY[${pair}]::int[], 'deleted')`;
            if ((await decided) === "rollback") throw new Error("rolled back");
          },
          { timeout: 60_000 },
        )
        .catch(() => undefined);
    const rolledBack = transaction("hook-rolled-back");
    await waitFor("the transaction's event row written", async () => {
      const [row] = await db.$queryRaw<{ open: number }[]>`SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`;
      return (row?.open ?? 0) > 0 ? true : undefined;
    });
    // A change committed after it goes out while it is still open: nothing waits on another transaction.
    await ingestTestDocument(queue, { id: "hook-later", text: "later text", ccPairId: pair });
    await waitFor("the later event delivered", () => (summary("/rollback").includes("document.indexed hook-later") ? true : undefined), { describe: worker.output });
    release("rollback");
    await rolledBack;
    await ingestTestDocument(queue, { id: "hook-after", text: "after text", ccPairId: pair });
    await waitFor("the event after the rollback delivered", () => (summary("/rollback").includes("document.indexed hook-after") ? true : undefined), { describe: worker.output });
    expect(summary("/rollback").filter((line) => line.includes("hook-rolled-back"))).toEqual([]);
  }, 60_000);

  it("sends a receiver's waiting retries as soon as it takes a delivery again, not at their next backoff", async () => {
    const pair = await createTestPair(db, { name: "Hooks recovery" });
    const endpointId = await register("/recovers", { ccPairIds: [pair], eventTypes: ["document.indexed"] });
    down.add("/recovers");
    await ingestTestDocument(queue, { id: "hook-waiting", text: "waiting text", ccPairId: pair });
    // Two failed tries: the next waits 10 s.
    await waitFor("two failed tries", async () => ((await db.webhookDelivery.findFirst({ where: { endpointId, documentId: "hook-waiting", lastStatusCode: 503, attempts: 2, leasedUntil: null } })) ? true : undefined), {
      describe: worker.output,
      timeoutMs: 30_000,
    });
    const waiting = await db.webhookDelivery.findFirstOrThrow({ where: { endpointId, documentId: "hook-waiting" } });
    down.delete("/recovers");
    await ingestTestDocument(queue, { id: "hook-back", text: "back text", ccPairId: pair });
    const delivered = await waitFor("the waiting delivery delivered", async () => (await db.webhookDelivery.findFirst({ where: { id: waiting.id, status: "delivered" } })) ?? undefined, {
      describe: worker.output,
      timeoutMs: 30_000,
    });
    expect(delivered.attempts).toBe(3);
    expect(delivered.finishedAt!.getTime()).toBeLessThan(waiting.nextAttemptAt.getTime());
    expect(await db.webhookDelivery.findFirst({ where: { endpointId, documentId: "hook-back", status: "delivered", attempts: 1 } })).not.toBeNull();
  }, 60_000);

  it("holds a receiver that keeps failing to one probe at a time, and sends its backlog, each event once, when it is back", async () => {
    const pair = await createTestPair(db, { name: "Hooks outage" });
    const endpointId = await register("/outage", { ccPairIds: [pair], eventTypes: ["document.indexed"] });
    down.add("/outage");
    const ids = Array.from({ length: 40 }, (_, index) => `hook-outage-${index}`);
    for (const id of ids) await ingestTestDocument(queue, { id, text: `outage text ${id}`, ccPairId: pair });
    await waitFor("every document indexed", async () => ((await db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } })) === ids.length ? true : undefined), {
      describe: worker.output,
      timeoutMs: 30_000,
    });
    // Without the breaker each of the 40 deliveries is tried again 5 s and 15 s after its first try.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const triesDown = at("/outage").length;
    const lateTries = at("/outage").filter((entry) => entry.at > Date.now() - 9_000).length;
    console.info(`a receiver down for 15 s with 40 deliveries: ${triesDown} tries, ${lateTries} in the last 9 s`);
    expect(triesDown).toBeLessThan(45);
    expect(lateTries).toBeLessThanOrEqual(2);
    expect(await db.webhookDelivery.count({ where: { endpointId, status: "pending" } })).toBe(ids.length);

    down.delete("/outage");
    const back = Date.now();
    await waitFor("the backlog delivered", async () => ((await db.webhookDelivery.count({ where: { endpointId, status: "delivered" } })) === ids.length ? true : undefined), {
      describe: worker.output,
      timeoutMs: 40_000,
    });
    const sinceBack = at("/outage").filter((entry) => entry.at >= back);
    expect(new Set(sinceBack.map((entry) => entry.event.document_id))).toEqual(new Set(ids));
    expect(sinceBack).toHaveLength(ids.length);
    expect(sinceBack.every((entry) => entry.signed)).toBe(true);
  }, 120_000);

  it("sends a delivery again, same id, when the worker dies while the receiver holds it", async () => {
    const pair = await createTestPair(db, { name: "Hooks kill" });
    await register("/hang", { ccPairIds: [pair], eventTypes: ["document.indexed"] });
    hangFirst.add("/hang");
    await ingestTestDocument(queue, { id: "hook-kill", text: "kill text", ccPairId: pair });
    await waitFor("the receiver holding the first try", () => (at("/hang").length === 1 ? true : undefined), { describe: worker.output });
    const [held] = await db.webhookDelivery.findMany({ where: { endpoint: { url: `${base}/hang` } } });
    expect(held).toMatchObject({ status: "pending", attempts: 1 });
    expect(held?.leasedUntil?.getTime()).toBeGreaterThan(Date.now());
    await worker.kill();
    for (const response of hanging) response.destroy();

    const second = startWorker(WORKER_ENV);
    // The dead worker's lease (the 10 s timeout and a 5 s margin) runs out; the new worker sends it.
    await waitFor("the delivery sent again", () => (at("/hang").length >= 2 ? true : undefined), { timeoutMs: 40_000, describe: second.output });
    const [first, again] = at("/hang");
    expect(again).toMatchObject({ id: first?.id, signed: true, event: { type: "document.indexed", document_id: "hook-kill" } });
    const delivered = await waitFor("the resend recorded", async () => {
      const row = await db.webhookDelivery.findUnique({ where: { id: held?.id ?? 0n } });
      return row?.status === "delivered" ? row : undefined;
    });
    expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    expect(await second.stop()).toBe(0);
  }, 90_000);
});
