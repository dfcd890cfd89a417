// GET /svc-api/events through the production server, with a real worker indexing (docs/decisions.md
// "Events"): what a pipeline learns from the stream, what a scoped key may see of it, resuming, the
// transaction-order rule, the streams' bound, and @svc/client's iterable across a dropped connection.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createApiKey, purgeExpiredEvents } from "@svc/core";
import { createTestJobQueue, createTestPair, createTestKey, installPoisonTrigger, POISON, postTestIngestion, testIngestionBody, type TestJobQueue } from "@svc/core/testing";
import { createSvcClient, type EventStreamData } from "@svc/client";
import { withSqlTransaction } from "@svc/db";
import { waitFor } from "@svc/db/testing";
import type { SvcEvent } from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventIds, openStream, type OpenedStream } from "./event-stream";
import { startProductionServer, type ProductionServer } from "./production-server";
import { startTestWorker, type TestWorker } from "./worker";

const MAX_STREAMS = 6;
let queue: TestJobQueue;
let server: ProductionServer;
let worker: TestWorker;
let adminKey = "";
const opened: OpenedStream[] = [];

beforeAll(async () => {
  queue = await createTestJobQueue();
  await installPoisonTrigger(queue.db);
  adminKey = (await createApiKey({ db: queue.db, name: "events admin", role: "admin" })).key;
  // A small in-flight limit: an open stream must not hold one of its slots.
  server = await startProductionServer({ databaseUrl: queue.databaseUrl, env: { SVC_MAX_EVENT_STREAMS: String(MAX_STREAMS), SVC_MAX_IN_FLIGHT: "2" } });
  worker = await startTestWorker({ db: queue.db, databaseUrl: queue.databaseUrl });
});
afterAll(async () => {
  for (const stream of opened) stream.close();
  await worker?.stop();
  await server?.stop();
  await queue?.close();
});

const eventsUrl = (query = "") => `${server.base}/api/svc-api/events${query}`;

async function stream(key = adminKey, query = "", headers: Record<string, string> = {}): Promise<OpenedStream> {
  const opening = await openStream(eventsUrl(query), key, headers);
  opened.push(opening);
  return opening;
}

async function closeAll(): Promise<void> {
  for (const opening of opened.splice(0)) {
    opening.close();
    await opening.closed;
  }
}

async function ingest(document: { id: string; ccPairId?: number; text?: string }, key = adminKey): Promise<void> {
  const response = await postTestIngestion(server.base, key, testIngestionBody(document));
  expect(response.status, await response.clone().text()).toBe(200);
}

const ofDocuments = (events: SvcEvent[], ids: string[]) => events.filter((event) => event.document_id !== null && ids.includes(event.document_id));
const summary = (events: SvcEvent[]) => events.map((event) => [event.type, event.document_id, event.version]);

describe("GET /svc-api/events", () => {
  it("tells a pipeline when its documents are indexed, failed and deleted, each once, with the SSE fields", async () => {
    const pair = await createTestPair(queue.db, { name: "Stream pair", access: "private" });
    const live = await stream();
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    await live.until("the stream's position", (s) => (s.messages[0]?.comments.includes("connected") ? true : undefined));
    expect(live.messages[0]?.id).toMatch(/^evt_\d+$/);

    await ingest({ id: "st-good", ccPairId: pair });
    await ingest({ id: "st-bad", ccPairId: pair, text: `holds ${POISON}` });
    await live.until("indexed and failed", (s) => (ofDocuments(s.events(), ["st-good", "st-bad"]).length === 2 ? true : undefined));
    const response = await fetch(`${server.base}/api/svc-api/ingestion/st-good`, { method: "DELETE", headers: { authorization: `Bearer ${adminKey}` } });
    expect(response.status).toBe(200);
    await live.until("the deletion", (s) => (s.events().some((event) => event.type === "document.deleted") ? true : undefined));
    await live.until("the attempt's end", (s) => (s.events().some((event) => event.type === "attempt.finished" && event.cc_pair_ids.includes(pair)) ? true : undefined));

    const documents = ofDocuments(live.events(), ["st-good", "st-bad"]);
    expect(documents.map((event) => event.type).sort()).toEqual(["document.deleted", "document.failed", "document.indexed"]);
    expect(documents.find((event) => event.type === "document.indexed")).toMatchObject({ document_id: "st-good", version: 1, status: "indexed", cc_pair_ids: [pair], error: null });
    expect(documents.find((event) => event.type === "document.failed")).toMatchObject({ document_id: "st-bad", version: 1, status: "failed", error: expect.stringContaining("chunk rejected") as unknown });
    expect(documents.find((event) => event.type === "document.deleted")).toMatchObject({ document_id: "st-good", status: "deleted", cc_pair_ids: [pair] });
    // The deletion comes after the indexing it undid; each message's id is its event's, its type its event's.
    expect(documents.findIndex((event) => event.type === "document.deleted")).toBeGreaterThan(documents.findIndex((event) => event.type === "document.indexed"));
    for (const message of live.messages.filter((m) => m.data !== null)) {
      const data = JSON.parse(message.data ?? "") as SvcEvent;
      expect([message.id, message.event]).toEqual([data.id, data.type]);
    }
    expect(new Set(eventIds(live)).size).toBe(eventIds(live).length);
    await closeAll();
  });

  it("shows a scoped key nothing of another pair, whatever its filters name, and its own pair's events", async () => {
    const own = await createTestPair(queue.db, { name: "Scoped own", access: "private" });
    const other = await createTestPair(queue.db, { name: "Scoped other", access: "private" });
    const scopedKey = await createTestKey(queue.db, "curator", [own]);
    const scopedLive = await stream(scopedKey);
    const filteredLive = await stream(scopedKey, `?cc_pair_id=${other}`);
    const admin = await stream();
    await ingest({ id: "sc-other-1", ccPairId: other });
    await ingest({ id: "sc-other-2", ccPairId: other });
    await admin.until("the other pair's documents", (s) => (ofDocuments(s.events(), ["sc-other-1", "sc-other-2"]).length === 2 ? true : undefined));
    // The scoped key's own document, indexed after the others' were final: once the scoped stream has
    // it, it has passed theirs.
    await ingest({ id: "sc-own-1", ccPairId: own }, scopedKey);
    await scopedLive.until("its own document", (s) => (ofDocuments(s.events(), ["sc-own-1"]).length === 1 ? true : undefined));
    await admin.until("the own document", (s) => (ofDocuments(s.events(), ["sc-own-1"]).length === 1 ? true : undefined));
    const replayed = await stream(scopedKey, "?after=evt_0");
    const replayedFiltered = await stream(scopedKey, `?after=evt_0&cc_pair_id=${other},${own}`);
    const replayedOnlyOther = await stream(scopedKey, `?after=evt_0&cc_pair_id=${other}&types=document.indexed,attempt.finished`);
    for (const replay of [replayed, replayedFiltered, replayedOnlyOther]) await replay.live();
    await filteredLive.until("its place past the own document", (s) => (s.messages.some((m) => m.comments.includes("live")) ? true : undefined));

    const mentionsOther = (event: SvcEvent) => event.cc_pair_ids.includes(other) || (event.document_id ?? "").startsWith("sc-other");
    for (const scoped of [scopedLive, filteredLive, replayed, replayedFiltered, replayedOnlyOther]) {
      expect(scoped.events().filter(mentionsOther)).toEqual([]);
      // Nor anything of another test's pairs: only its own pair's events.
      expect(scoped.events().filter((event) => !event.cc_pair_ids.includes(own))).toEqual([]);
    }
    expect(admin.events().filter(mentionsOther).length).toBeGreaterThanOrEqual(2);
    expect(summary(ofDocuments(replayed.events(), ["sc-own-1"]))).toEqual([["document.indexed", "sc-own-1", 1]]);
    expect(summary(ofDocuments(replayedFiltered.events(), ["sc-own-1"]))).toEqual([["document.indexed", "sc-own-1", 1]]);
    expect(replayedOnlyOther.events()).toEqual([]);
    await closeAll();
  });

  it("resumes after Last-Event-ID (or ?after=) with exactly the events missed, none twice; a purged position says so first", async () => {
    const pair = await createTestPair(queue.db, { name: "Resume pair", access: "private" });
    const whole = await stream(adminKey, `?cc_pair_id=${pair}`);
    await ingest({ id: "rs-1", ccPairId: pair });
    await ingest({ id: "rs-2", ccPairId: pair });
    const first = await whole.until("the first two", (s) => (ofDocuments(s.events(), ["rs-1", "rs-2"]).length === 2 ? ofDocuments(s.events(), ["rs-1", "rs-2"]) : undefined));
    const lastSeen = first.at(-1)?.id ?? "";
    for (const id of ["rs-3", "rs-4", "rs-5"]) await ingest({ id, ccPairId: pair });
    // The pair's last attempt closes with its last document: after it, nothing more happens in the pair.
    await whole.until("all five, then the attempt's end", (s) => {
      const events = s.events();
      const indexes = ["rs-3", "rs-4", "rs-5"].map((id) => events.findIndex((event) => event.document_id === id));
      if (indexes.includes(-1)) return undefined;
      return events.slice(Math.max(...indexes) + 1).some((event) => event.type === "attempt.finished") ? true : undefined;
    });
    const after = (events: SvcEvent[]) => events.slice(events.findIndex((event) => event.id === lastSeen) + 1);

    const resumed = await stream(adminKey, `?cc_pair_id=${pair}`, { "last-event-id": lastSeen });
    const byQuery = await stream(adminKey, `?cc_pair_id=${pair}&after=${lastSeen}`);
    // The header wins over the query (EventSource sends the header on reconnect, with the URL it first had).
    const both = await stream(adminKey, `?cc_pair_id=${pair}&after=evt_0`, { "last-event-id": lastSeen });
    for (const replay of [resumed, byQuery, both]) {
      await replay.live();
      expect(eventIds(replay)).toEqual(eventIds({ ...whole, events: () => after(whole.events()) }));
      expect(replay.events().some((event) => ["rs-1", "rs-2"].includes(event.document_id ?? ""))).toBe(false);
    }

    // The event resumed from is purged (older than the retention window): the stream says so, then
    // sends every event kept.
    await queue.db.$executeRawUnsafe(`UPDATE svc_event SET occurred_at = now() - interval '48 hours' WHERE id = ${lastSeen.slice(4)}`);
    expect(await purgeExpiredEvents(queue.db, 24)).toBe(1);
    const gap = await stream(adminKey, `?cc_pair_id=${pair}`, { "last-event-id": lastSeen });
    await gap.live();
    const notice = gap.messages.find((message) => message.event === "events.missed");
    expect(JSON.parse(notice?.data ?? "{}")).toMatchObject({ type: "events.missed", after: lastSeen });
    expect(gap.messages.findIndex((message) => message.event === "events.missed")).toBeLessThan(gap.messages.findIndex((message) => message.data !== null && message.event !== "events.missed"));
    expect(eventIds(gap)).toEqual(eventIds(whole).filter((id) => id !== lastSeen));

    for (const [query, headers] of [["?after=42", {}], ["?types=document.exploded", {}], ["?cc_pair_id=0", {}], ["", { "last-event-id": "yesterday" }],
      // Past PostgreSQL's bigint: a 422, not the database's out-of-range error (a 500).
      ["?after=evt_9999999999999999999", {}], ["", { "last-event-id": "evt_9223372036854775808" }]] as const) {
      const refused = await stream(adminKey, query, headers);
      expect(refused.status, query).toBe(422);
      expect(refused.body).toMatchObject({ detail: [expect.objectContaining({ loc: expect.any(Array) as unknown })] });
    }
    await closeAll();
  });

  it("sends an event that commits late in its transaction's order, never skips it, and nothing of a rolled-back one", async () => {
    const live = await stream();
    await live.until("its position", (s) => (s.messages.length > 0 ? true : undefined));
    // A transaction writes its event and stays open; a later one commits its own first.
    let inserted: () => void = () => undefined;
    let release: () => void = () => undefined;
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const early = withSqlTransaction(queue.db, async (client) => {
      await client.query(`INSERT INTO svc_event (type, document_id, status) VALUES ('document.deleted', 'late-early-tx', 'deleted')`);
      inserted();
      await released;
    });
    await insertedRow;
    await ingest({ id: "late-later-tx" });
    // The later transaction's event is committed, but not final while the older one runs.
    await waitFor("the later event's row", async () => ((await queue.db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM svc_event WHERE document_id = 'late-later-tx'`)).length > 0 ? true : undefined));
    release();
    await early;
    await live.until("both", (s) => (ofDocuments(s.events(), ["late-early-tx", "late-later-tx"]).length === 2 ? true : undefined));
    expect(summary(ofDocuments(live.events(), ["late-early-tx", "late-later-tx"]))).toEqual([
      ["document.deleted", "late-early-tx", null],
      ["document.indexed", "late-later-tx", 1],
    ]);

    await expect(
      withSqlTransaction(queue.db, async (client) => {
        await client.query(`INSERT INTO svc_event (type, document_id, status) VALUES ('document.deleted', 'rolled-back', 'deleted')`);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    // A refused deletion (a key outside the document's pair) rolls back too.
    const scopedKey = await createTestKey(queue.db, "curator", [await createTestPair(queue.db, { name: "Elsewhere", access: "private" })]);
    const refused = await fetch(`${server.base}/api/svc-api/ingestion/late-later-tx`, { method: "DELETE", headers: { authorization: `Bearer ${scopedKey}` } });
    expect([403, 404]).toContain(refused.status);
    await ingest({ id: "after-rollback" });
    await live.until("the marker after them", (s) => (ofDocuments(s.events(), ["after-rollback"]).length === 1 ? true : undefined));
    expect(ofDocuments(live.events(), ["rolled-back"])).toEqual([]);
    expect(live.events().filter((event) => event.type === "document.deleted" && event.document_id === "late-later-tx")).toEqual([]);
    await closeAll();
  });

  it(`serves ${MAX_STREAMS} streams at most (429 with Retry-After past it), and open streams hold no in-flight slot`, async () => {
    // One at a time: the previous tests' streams are released as their connections close.
    const streams: OpenedStream[] = [];
    while (streams.length < MAX_STREAMS) {
      streams.push(
        await waitFor("a stream's place", async () => {
          const next = await stream();
          if (next.status === 200) return next;
          next.close();
          return undefined;
        }),
      );
    }
    const refused = await stream();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(refused.body).toEqual({ detail: expect.stringContaining("event streams") as unknown });
    // SVC_MAX_IN_FLIGHT is 2 and six streams are open: ingestion still gets through.
    for (const id of ["cap-1", "cap-2", "cap-3"]) await ingest({ id });
    streams[0]?.close();
    await waitFor("a stream's place freed", async () => {
      const again = await stream();
      if (again.status === 200) return true;
      again.close();
      return undefined;
    });
    await closeAll();
  });
});

describe("@svc/client events()", () => {
  it("resumes across a dropped connection with the last id: every event once, in order", async () => {
    const pair = await createTestPair(queue.db, { name: "Client pair", access: "private" });
    const reference = await stream(adminKey, `?cc_pair_id=${pair}`);
    await reference.until("its position", (s) => (s.messages.length > 0 ? true : undefined));
    // A proxy that cuts the first connection right after it forwarded its first event.
    const seenHeaders: (string | undefined)[] = [];
    const proxy = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
      seenHeaders.push(incoming.headers["last-event-id"] as string | undefined);
      const cutAfterFirstEvent = seenHeaders.length === 1;
      const target = new URL(server.base);
      const forwarded = httpRequest({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on("data", (chunk: Buffer) => {
          outgoing.write(chunk);
          if (cutAfterFirstEvent && chunk.toString().includes("\ndata: ")) {
            answer.destroy();
            outgoing.socket?.end();
          }
        });
        answer.on("end", () => outgoing.end());
      });
      outgoing.on("close", () => forwarded.destroy());
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const controller = new AbortController();
    try {
      const client = createSvcClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`, apiKey: adminKey });
      const events = client.events({ ccPairIds: [pair], types: ["document.indexed"], signal: controller.signal, reconnectDelayMs: 100 });
      // The previous test's streams are released as their connections close.
      await waitFor("a stream's place", () => events.opened().then(() => true, (error: unknown) => ((error as { status?: number }).status === 429 ? undefined : Promise.reject(error as Error))));
      for (const id of ["cl-1", "cl-2", "cl-3"]) await ingest({ id, ccPairId: pair });
      const received: EventStreamData[] = [];
      for await (const event of events) {
        received.push(event);
        if (received.length === 3) break;
      }
      await reference.until("the three", (s) => (ofDocuments(s.events(), ["cl-1", "cl-2", "cl-3"]).length === 3 ? true : undefined));
      expect(received.map((event) => event.type === "events.missed" ? event.after : event.id)).toEqual(eventIds(reference).filter((id) => ofDocuments(reference.events(), ["cl-1", "cl-2", "cl-3"]).some((event) => event.id === id)));
      // The second connection resumed from the first event's id.
      expect(seenHeaders.length).toBeGreaterThanOrEqual(2);
      expect(seenHeaders[0]).toBeUndefined();
      expect(seenHeaders[1]).toBe((received[0] as SvcEvent).id);
    } finally {
      controller.abort();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
    await closeAll();
  });
});
