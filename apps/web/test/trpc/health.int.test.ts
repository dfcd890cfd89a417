import { testSearchIndex } from "@svc/core/testing";
import { indexDocumentJob, indexDocuments } from "@svc/core";
import { describe, expect, it } from "vitest";
import { getServices } from "../../server/services";
import { useTestApp } from "../app";
import { ingestOverApi } from "../factories";
import { expectTrpcError, useConsoleFixture } from "./console";
import { installPoisonTrigger, POISON } from "./poison";

const app = useTestApp();

const fixture = useConsoleFixture(app);

describe("health.overview", () => {
  it("counts the queue, the documents indexed per minute over the last hour, and lists failed documents", async () => {
    await installPoisonTrigger(app.db);
    for (const id of ["ok-1", "ok-2"]) await ingestOverApi(app, { id, text: "Fine text.", ccPairId: fixture.ownPair });
    await ingestOverApi(app, { id: "bad-a", text: `A ${POISON}.`, ccPairId: fixture.ownPair });
    await ingestOverApi(app, { id: "bad-b", text: `B ${POISON}.`, ccPairId: fixture.otherPrivatePair });
    await ingestOverApi(app, { id: "waiting", text: "Not indexed yet.", ccPairId: fixture.ownPair });
    const jobs = ["ok-1", "ok-2", "bad-a", "bad-b"].map((documentId) => ({ documentId, version: 1 }));
    await expect(indexDocuments({ index: testSearchIndex(), db: app.db, jobs })).rejects.toThrow();
    // The worker holds one job: the queue shows it active, the four others waiting.
    const { boss } = await getServices();
    const [held] = await boss.fetch(indexDocumentJob.name);
    expect(held).toBeDefined();

    const before = Date.now();
    const overview = await fixture.admin.health.overview();
    expect(overview.queue).toEqual({ queued: 4, retrying: 0, active: 1, deadLetter: 0 });
    // The own pair still has "waiting" queued, so its attempt is open; the other pair's drained and closed.
    expect(overview.pairsIndexing).toBe(1);

    expect(overview.indexedPerMinute).toHaveLength(60);
    const minutes = overview.indexedPerMinute.map((entry) => entry.minute.getTime());
    expect(minutes.every((minute, index) => minute % 60_000 === 0 && (index === 0 || minute - (minutes[index - 1] ?? 0) === 60_000))).toBe(true);
    expect(minutes.at(-1)).toBeLessThanOrEqual(before);
    expect(minutes.at(-1)).toBeGreaterThan(before - 2 * 60_000);
    expect(overview.indexedPerMinute.reduce((total, entry) => total + entry.count, 0)).toBe(2);
    expect(overview.indexedPerMinute.slice(0, 55).every((entry) => entry.count === 0)).toBe(true);

    expect(overview.failedDocuments.map((document) => document.documentId).sort()).toEqual(["bad-a", "bad-b"]);
    // One number of failure: every failed document, which the list shows the newest of.
    expect(overview.failedDocumentCount).toBe(2);
    expect(overview.failedDocuments.find((document) => document.documentId === "bad-a")).toEqual({
      documentId: "bad-a",
      semanticId: "Doc bad-a",
      lastError: expect.stringContaining("chunk rejected") as unknown,
      attempts: 1,
      updatedAt: expect.any(Date) as unknown,
    });
    expect(overview.rebuild).toMatchObject({ status: "idle" });

    // A job whose run fails waits for its retry: still queued, and counted as retrying.
    await boss.fail(indexDocumentJob.name, held!.id, { message: "failed run" });
    expect((await fixture.admin.health.overview()).queue).toEqual({ queued: 5, retrying: 1, active: 0, deadLetter: 0 });

    // A scoped curator sees the same queue and chart, but only its own pairs' failures.
    const scoped = await fixture.scopedCurator.health.overview();
    expect(scoped.failedDocuments.map((document) => document.documentId)).toEqual(["bad-a"]);
    expect(scoped.failedDocumentCount).toBe(1);
    expect(scoped.pairsIndexing).toBe(1);

  });

  it("startRebuild is for admins; the overview then shows the rebuild", async () => {
    await expectTrpcError(fixture.scopedCurator.health.startRebuild({}), "FORBIDDEN");
    await expectTrpcError(fixture.admin.health.startRebuild({ chunkTokenLimit: 1 }), "BAD_REQUEST");
    await expectTrpcError(fixture.admin.health.startRebuild({ textSearchConfig: "no_such_config" }), "UNPROCESSABLE_CONTENT");
    const started = await fixture.admin.health.startRebuild({ chunkTokenLimit: 256 });
    expect(started).toEqual({
      status: "building",
      generationId: expect.any(Number) as unknown,
      docsDone: 0,
      // The two indexed documents and the two failed ones (counted as failed by the pass).
      docsTotal: 4,
      docsFailed: 0,
      startedAt: expect.any(Date) as unknown,
      current: { generationId: expect.any(Number) as unknown, chunkTokenLimit: 512, textSearchConfig: "english" },
      lastRebuild: null,
    });
    expect(started.generationId).not.toBe(started.current.generationId);
    await expectTrpcError(fixture.admin.health.startRebuild({}), "CONFLICT");
    expect((await fixture.scopedCurator.health.overview()).rebuild).toEqual(started);
  });

  it("cancelRebuild is for admins; it stops the running rebuild, and NOT_FOUND when none runs", async () => {
    expect((await fixture.admin.health.overview()).rebuild.status).toBe("building");
    await expectTrpcError(fixture.scopedCurator.health.cancelRebuild(), "FORBIDDEN");
    const canceled = await fixture.admin.health.cancelRebuild();
    expect(canceled).toMatchObject({ status: "idle", generationId: null, lastRebuild: { status: "canceled", docsDone: 0, docsFailed: 0 } });
    expect((await fixture.scopedCurator.health.overview()).rebuild).toEqual(canceled);
    await expectTrpcError(fixture.admin.health.cancelRebuild(), "NOT_FOUND");
  });

  it("counts a pair being indexed for whoever may see it, as its listing reads it in progress", async () => {
    const before = await fixture.admin.health.overview();
    const scopedBefore = await fixture.scopedCurator.health.overview();
    for (const id of ["other-1", "other-2"]) await ingestOverApi(app, { id, text: "Other text.", ccPairId: fixture.otherPrivatePair });
    // other-2 is still queued: the other pair's attempt stays open.
    await indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId: "other-1", version: 1 }] });
    expect((await fixture.admin.health.overview()).pairsIndexing).toBe(before.pairsIndexing + 1);
    // The scoped curator may not see the other private pair.
    expect((await fixture.scopedCurator.health.overview()).pairsIndexing).toBe(scopedBefore.pairsIndexing);
    await indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId: "other-2", version: 1 }] });
    expect((await fixture.admin.health.overview()).pairsIndexing).toBe(before.pairsIndexing);
  });
});
