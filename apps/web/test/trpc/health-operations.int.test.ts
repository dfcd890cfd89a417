// What an operator reads on Indexing health beyond the queue (issue 39, point 5): live workers from
// their heartbeats, the index's size, search p50/p95, and the dead-letter queue's jobs with a retry,
// through the console's procedures on real PostgreSQL, LanceDB and pg-boss, each number checked
// against GET /api/metrics where both show it.
import { measureSearchIndex, recordWorkerHeartbeat, removeWorkerHeartbeat, runIndexRebuild } from "@svc/core";
import { testSearchIndex } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getServices } from "../../server/services";
import { useTestApp } from "../app";
import { sendIndexingJobsWithoutRetries } from "../dead-letter";
import { ingestAndIndexOverApi, ingestOverApi } from "../factories";
import { parseMetrics, sample, type Sample } from "../prometheus";
import { startTestWorker, type TestWorker } from "../worker";
import { expectTrpcError, useConsoleFixture } from "./console";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "./poison";

const app = useTestApp();
const fixture = useConsoleFixture(app);

async function scrape(): Promise<Sample[]> {
  const response = await app.request("GET", "/api/metrics");
  expect(response.status).toBe(200);
  return parseMetrics(await response.text());
}

describe("search latency", () => {
  it("counts REST and console searches over the last 5 minutes, with the p50 and p95 GET /api/metrics exports", async () => {
    await ingestAndIndexOverApi(app, { id: "latency-1", text: "Printer queue stalls on Mondays.", ccPairId: fixture.ownPair });
    const before = (await fixture.admin.health.overview()).searchLatency;
    expect(before).toEqual({ windowSeconds: 300, searches: 0, p50Ms: null, p95Ms: null });
    expect(sample(await scrape(), "svc_search_window_searches", { component: "web" })).toBe(0);
    expect(sample(await scrape(), "svc_search_latency_seconds", { component: "web", quantile: "0.5" })).toBeUndefined();

    for (const query of ["printer", "queue", "mondays"]) {
      const response = await app.request("POST", "/api/svc-api/search", { body: { query } });
      expect(response.status).toBe(200);
    }
    for (const query of ["printer", "stalls"]) {
      expect((await fixture.scopedCurator.documents.search({ query })).results.length).toBeGreaterThan(0);
    }
    // Refused before it ran (a scoped key may not search on behalf of someone): not a search's latency.
    const refused = await app.request("POST", "/api/svc-api/search", {
      body: { query: "printer", principal: { email: "a@example.com" } },
      key: await app.createKey("admin", [fixture.ownPair]),
    });
    expect(refused.status).toBe(403);

    const after = (await fixture.admin.health.overview()).searchLatency;
    expect(after.searches).toBe(5);
    expect(after.p50Ms).toBeGreaterThan(0);
    expect(after.p95Ms).toBeGreaterThanOrEqual(after.p50Ms!);
    const samples = await scrape();
    expect(sample(samples, "svc_search_window_searches", { component: "web" })).toBe(5);
    expect(sample(samples, "svc_search_latency_seconds", { component: "web", quantile: "0.5" })! * 1000).toBeCloseTo(after.p50Ms!, 6);
    expect(sample(samples, "svc_search_latency_seconds", { component: "web", quantile: "0.95" })! * 1000).toBeCloseTo(after.p95Ms!, 6);
  });
});

describe("live workers", () => {
  it("counts a worker from its first heartbeat, and drops one that stopped or went silent, as svc_workers does", async () => {
    const live = async () => {
      const [overview, samples] = await Promise.all([fixture.scopedCurator.health.overview(), scrape()]);
      expect(sample(samples, "svc_workers")).toBe(overview.liveWorkers);
      return overview.liveWorkers;
    };
    expect(await live()).toBe(0);
    const [first, second] = [randomUUID(), randomUUID()];
    // As apps/worker stamps it at start and on its timer.
    for (const workerId of [first, second]) await recordWorkerHeartbeat({ db: app.db, workerId, hostname: "test", pid: process.pid, startedAt: new Date() });
    expect(await live()).toBe(2);
    // A graceful stop removes its row.
    await removeWorkerHeartbeat({ db: app.db, workerId: first });
    expect(await live()).toBe(1);
    // A killed worker stops stamping: past 60 s it no longer counts.
    await app.db.$executeRaw`UPDATE worker_heartbeat SET seen_at = now() - interval '61 seconds' WHERE worker_id = ${second}`;
    expect(await live()).toBe(0);
  });
});

describe("index size", () => {
  it("grows as documents are indexed: the serving generation's documents, chunks and bytes, and the folder", async () => {
    const before = (await fixture.admin.health.overview()).indexSize;
    expect(before.serving).not.toBeNull();
    const words = Array.from({ length: 3_000 }, (_, index) => `word${index}`).join(" ");
    await ingestAndIndexOverApi(
      app,
      ...["size-1", "size-2", "size-3"].map((id) => ({ id, text: `${id} ${words}`, ccPairId: fixture.ownPair })),
    );
    const after = (await fixture.scopedCurator.health.overview()).indexSize;
    expect(after.serving!.generationId).toBe(before.serving!.generationId);
    expect(after.serving!.documents).toBe(before.serving!.documents + 3);
    // 3,000 words a document: several chunks each.
    expect(after.serving!.chunks).toBeGreaterThanOrEqual(before.serving!.chunks + 9);
    expect(after.serving!.bytes).toBeGreaterThan(before.serving!.bytes);
    expect(after.folderBytes).toBeGreaterThan(before.folderBytes!);
    expect(after.folderBytes).toBeGreaterThanOrEqual(after.serving!.bytes);
    // The figures `svc index status` and GET /api/metrics read.
    const [current] = (await measureSearchIndex({ db: app.db, index: testSearchIndex() })).filter((generation) => generation.status === "current");
    expect(current?.size).toEqual({ documents: after.serving!.documents, chunks: after.serving!.chunks, bytes: after.serving!.bytes });
  });
});

describe("dead letter", () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await startTestWorker({ db: app.db, databaseUrl: app.databaseUrl });
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it("lists a job out of retries with its document, pairs and error, as far as the key may see; a retry requeues it and it gets indexed", async () => {
    await installPoisonTrigger(app.db);
    await ingestOverApi(app, { id: "dead-own", text: `A ${POISON}.`, ccPairId: fixture.ownPair });
    await ingestOverApi(app, { id: "dead-private", text: `B ${POISON}.`, ccPairId: fixture.otherPrivatePair });
    const { boss } = await getServices();
    await sendIndexingJobsWithoutRetries(boss, app.db, ["dead-own", "dead-private"]);
    const list = await waitFor("both jobs in the dead-letter queue", async () => {
      const found = await fixture.admin.health.deadLetters();
      return found.total === 2 ? found : undefined;
    });
    expect((await fixture.admin.health.overview()).queue.deadLetter).toBe(2);
    const own = list.jobs.find((job) => job.documentId === "dead-own");
    expect(own).toEqual({
      jobId: expect.any(String) as unknown,
      queue: "index-document",
      documentId: "dead-own",
      semanticId: "Doc dead-own",
      documentStatus: "failed",
      ccPairIds: [fixture.ownPair],
      generationId: null,
      error: expect.stringMatching(/failed to index|chunk rejected/) as unknown,
      documentError: expect.stringContaining("chunk rejected") as unknown,
      runs: 1,
      failedAt: expect.any(Date) as unknown,
    });
    expect(list.jobs.find((job) => job.documentId === "dead-private")?.ccPairIds).toEqual([fixture.otherPrivatePair]);
    // The scoped curator sees its own pair's job only (the document rule), and may not retry.
    const scoped = await fixture.scopedCurator.health.deadLetters();
    expect(scoped).toEqual({ total: 1, jobs: [own] });
    await expectTrpcError(fixture.scopedCurator.health.retryDeadLetter({ jobId: own!.jobId }), "FORBIDDEN");
    await expectTrpcError(fixture.admin.health.retryDeadLetter({ jobId: "not-a-job-id" }), "BAD_REQUEST");
    await expectTrpcError(fixture.admin.health.retryDeadLetter({ jobId: randomUUID() }), "NOT_FOUND");

    // Fixed, then retried: the job goes back to its queue and the worker indexes the document.
    await removePoisonTrigger(app.db);
    expect(await fixture.admin.health.retryDeadLetter({ jobId: own!.jobId })).toEqual({ retried: 1 });
    await expectTrpcError(fixture.admin.health.retryDeadLetter({ jobId: own!.jobId }), "NOT_FOUND");
    await waitFor("dead-own indexed", async () =>
      (await app.db.document.findUniqueOrThrow({ where: { id: "dead-own" } })).indexingStatus === "indexed" ? true : undefined,
    );
    expect(await fixture.admin.health.deadLetters()).toMatchObject({ total: 1, jobs: [{ documentId: "dead-private" }] });
    expect(await fixture.scopedCurator.health.deadLetters()).toEqual({ total: 0, jobs: [] });
    const search = await app.request("POST", "/api/svc-api/search", { body: { query: POISON } });
    expect(((await search.json()) as { results: { document_id: string }[] }).results.map((result) => result.document_id)).toContain("dead-own");

    // Retry all: the rest goes back too.
    expect(await fixture.admin.health.retryDeadLetter({ all: true })).toEqual({ retried: 1 });
    await waitFor("dead-private indexed", async () =>
      (await app.db.document.findUniqueOrThrow({ where: { id: "dead-private" } })).indexingStatus === "indexed" ? true : undefined,
    );
    expect(await fixture.admin.health.deadLetters()).toEqual({ total: 0, jobs: [] });
    expect((await fixture.admin.health.overview()).queue.deadLetter).toBe(0);
    expect(await fixture.admin.health.retryDeadLetter({ all: true })).toEqual({ retried: 0 });
  });
});

describe("rebuild throughput", () => {
  it("counts the documents a rebuild writes per minute beside, not inside, the documents indexed", async () => {
    const sum = (series: { count: number }[]) => series.reduce((total, minute) => total + minute.count, 0);
    const before = await fixture.admin.health.overview();
    expect(sum(before.rebuiltPerMinute)).toBe(0);
    expect(before.rebuiltPerMinute.map((minute) => minute.minute)).toEqual(before.indexedPerMinute.map((minute) => minute.minute));
    const started = await fixture.admin.health.startRebuild({});
    const { boss } = await getServices();
    const result = await runIndexRebuild({ index: testSearchIndex(), db: app.db, boss, generationId: started.generationId!, batchSize: 2 });
    expect(result).toMatchObject({ swapped: true });
    expect(result.docsDone).toBeGreaterThanOrEqual(4);

    const after = await fixture.scopedCurator.health.overview();
    expect(sum(after.rebuiltPerMinute)).toBe(result.docsDone);
    expect(after.rebuiltPerMinute.at(-1)!.count + (after.rebuiltPerMinute.at(-2)?.count ?? 0)).toBe(result.docsDone);
    expect(sum(after.indexedPerMinute)).toBe(sum(before.indexedPerMinute));
    // The new generation serves, and the size shown is its table's.
    expect(after.indexSize.serving).toMatchObject({ generationId: started.generationId, documents: result.docsDone });
  });
});
