// The event outbox (docs/decisions.md "Events"): each state change writes its event in its own
// transaction, so an event exists exactly when its change committed.
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../auth/principal";
import { deleteDocument } from "../documents/delete-document";
import { cancelIndexRebuild } from "../indexing/cancel-index-rebuild";
import { startIndexRebuild } from "../search-index/start-index-rebuild";
import { indexDocuments } from "../indexing/index-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { createTestPair, currentIndexJobs, ingestTestDocument } from "../testing/factories";
import { installPoisonTrigger, POISON } from "../testing/poison-chunks";
import { testSearchIndex } from "../testing/test-search-index";
import { purgeExpiredEvents } from "./event-rows";

const admin: Principal = { apiKeyId: 0, name: "test", role: "admin", scopeCcPairIds: null };
const queue = await useTestJobQueue();
const { db, boss } = queue;

beforeAll(async () => {
  await installPoisonTrigger(db);
});

interface EventRow {
  id: bigint;
  type: string;
  document_id: string | null;
  cc_pair_ids: number[];
  version: number | null;
  status: string | null;
  error: string | null;
  counts: { docs_indexed: number; docs_failed: number } | null;
}

async function eventsOf(filter: { documentIds?: string[]; pairId?: number }): Promise<EventRow[]> {
  return db.$queryRaw<EventRow[]>`
    SELECT id, type, document_id, cc_pair_ids, version, status, error, counts FROM svc_event
    WHERE document_id = ANY(${filter.documentIds ?? []}::text[]) OR ${filter.pairId ?? -1}::int = ANY(cc_pair_ids)
    ORDER BY id`;
}

describe("the event outbox", () => {
  it("tells each indexed document once, with its pairs and version, then the pair's attempt with its counts", async () => {
    const pair = await createTestPair(db, { name: "Evented" });
    await ingestTestDocument(queue, { id: "ev-a", ccPairId: pair });
    await ingestTestDocument(queue, { id: "ev-b", ccPairId: pair });
    await ingestTestDocument(queue, { id: "ev-b", ccPairId: pair });
    await indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ["ev-a", "ev-b"]) });

    const events = await eventsOf({ pairId: pair });
    expect(events.map(({ id: _id, ...event }) => event)).toEqual([
      { type: "document.indexed", document_id: "ev-a", cc_pair_ids: [pair], version: 1, status: "indexed", error: null, counts: null },
      { type: "document.indexed", document_id: "ev-b", cc_pair_ids: [pair], version: 2, status: "indexed", error: null, counts: null },
      { type: "attempt.finished", document_id: null, cc_pair_ids: [pair], version: null, status: "success", error: null, counts: { docs_indexed: 2, docs_failed: 0 } },
    ]);
    // Indexing the same versions again (a job run twice) changes nothing and tells nothing.
    await indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ["ev-a", "ev-b"]) });
    expect(await eventsOf({ pairId: pair })).toHaveLength(3);
  });

  it("writes nothing for a transaction that rolled back: a failed batch's healthy documents are told once, the poisoned one as failed", async () => {
    const pair = await createTestPair(db, { name: "Rolled back" });
    await ingestTestDocument(queue, { id: "rb-good-1", ccPairId: pair });
    await ingestTestDocument(queue, { id: "rb-bad", ccPairId: pair, text: `contains ${POISON}` });
    await ingestTestDocument(queue, { id: "rb-good-2", ccPairId: pair });
    // The batch's one transaction fails on the poisoned chunk (its events roll back with it); each
    // document is then indexed in a transaction of its own, and the batch rethrows for pg-boss's retry.
    await expect(indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ["rb-good-1", "rb-bad", "rb-good-2"]) })).rejects.toThrow();

    const events = await eventsOf({ documentIds: ["rb-good-1", "rb-bad", "rb-good-2"] });
    const byDocument = events.sort((a, b) => String(a.document_id).localeCompare(String(b.document_id)));
    expect(byDocument.map((event) => [event.type, event.document_id])).toEqual([
      ["document.failed", "rb-bad"],
      ["document.indexed", "rb-good-1"],
      ["document.indexed", "rb-good-2"],
    ]);
    expect(byDocument[0]).toMatchObject({ version: 1, status: "failed", cc_pair_ids: [pair], error: expect.stringContaining("chunk rejected") as unknown });

    // pg-boss's retry of the same version fails again: no second document.failed.
    await expect(indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ["rb-bad"]) })).rejects.toThrow();
    expect((await eventsOf({ documentIds: ["rb-bad"] })).map((event) => event.type)).toEqual(["document.failed"]);
  });

  it("tells a deleted document with the pairs it was linked to, and nothing for a refused delete", async () => {
    const pair = await createTestPair(db, { name: "Deleting" });
    await ingestTestDocument(queue, { id: "del-1", ccPairId: pair });
    const scoped: Principal = { apiKeyId: 0, name: "scoped", role: "admin", scopeCcPairIds: [pair + 1000] };
    await expect(deleteDocument({ db, index: testSearchIndex(), principal: scoped, documentId: "del-1" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await eventsOf({ documentIds: ["del-1"] })).toEqual([]);

    await deleteDocument({ db, index: testSearchIndex(), principal: admin, documentId: "del-1" });
    expect((await eventsOf({ documentIds: ["del-1"] })).map(({ id: _id, ...event }) => event)).toEqual([
      { type: "document.deleted", document_id: "del-1", cc_pair_ids: [pair], version: null, status: "deleted", error: null, counts: null },
    ]);
  });

  it("tells a canceled rebuild as rebuild.finished, canceled", async () => {
    await startIndexRebuild({ db, boss, principal: admin });
    await cancelIndexRebuild({ db, boss, principal: admin });
    const finished = await db.$queryRaw<EventRow[]>`SELECT type, status, counts FROM svc_event WHERE type = 'rebuild.finished'`;
    expect(finished).toEqual([{ type: "rebuild.finished", status: "canceled", counts: { docs_indexed: 0, docs_failed: 0 } }]);
  });

  it("keeps events for the retention window and purges older ones", async () => {
    await ingestTestDocument(queue, { id: "old-1" });
    await indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ["old-1"]) });
    await db.$executeRaw`UPDATE svc_event SET occurred_at = now() - interval '25 hours' WHERE document_id = 'old-1'`;
    const before = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM svc_event WHERE document_id <> 'old-1' OR document_id IS NULL`;
    expect(await purgeExpiredEvents(db, 24)).toBe(1);
    expect(await eventsOf({ documentIds: ["old-1"] })).toEqual([]);
    const after = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM svc_event`;
    expect(after[0]?.n).toBe(before[0]?.n);
  });
});
