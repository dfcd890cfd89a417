import { rm } from "node:fs/promises";
import { getIndexRebuildStatus, OPERATOR_PRINCIPAL, searchDocuments } from "@svc/core";
import { createTestPair, testSearchIndex, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { writeIndexMarker } from "@svc/search-index";
import { describe, expect, it } from "vitest";
import { indexRowInconsistencies, ingestMany, useWorkerProcess } from "./testing/worker-process";

// The built worker writing the file's search index (testSearchIndex), read back here through core's
// search, as the web process reads it.
const queue = await useTestJobQueue();
const { db } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

async function searchIds(query: string, limit = 100): Promise<string[]> {
  const { results } = await searchDocuments({
    db,
    index: testSearchIndex(),
    principal: OPERATOR_PRINCIPAL,
    request: { query, limit, filters: null, principal: null },
  });
  return results.map((result) => result.documentId).sort();
}

const DOCUMENTS = 400;
const ids = Array.from({ length: DOCUMENTS }, (_, index) => `idx-${String(index).padStart(4, "0")}`);

/** Waits until the worker has refilled the index: its rebuild swapped in, then search finds every document. */
async function waitForRefill(generationBefore: number, describe: () => string): Promise<void> {
  await waitFor(
    "the refill's generation to become current",
    async () => ((await getIndexRebuildStatus({ db })).current.generationId > generationBefore ? true : undefined),
    { timeoutMs: 90_000, describe },
  );
  await waitFor("search to find every document again", async () => ((await searchIds("harbour", 100)).length === 100 ? true : undefined), {
    timeoutMs: 30_000,
    describe,
  });
}

describe("the search index written by worker processes", () => {
  it("two workers writing one index at once leave every chunk in it once, and search finds every document", async () => {
    const pairs = [await createTestPair(db, { name: "Writers A" }), await createTestPair(db, { name: "Writers B" })];
    const first = startWorker();
    const second = startWorker();
    await ingestMany(
      queue,
      ids.map((id, index) => ({ id, text: `The harbour log of ${id} records tides.`, ccPairId: pairs[index % 2] })),
    );
    await waitForIndexed(db, ids, { timeoutMs: 120_000, describe: () => `${first.output()}\n${second.output()}` });

    expect(await indexRowInconsistencies(db)).toEqual({ lost: [], orphans: [], doubled: [] });
    expect(await searchIds("harbour tides", 100)).toHaveLength(100);
    // Phrases match merged rows: the workers' schedule merges within seconds.
    const phrase = `"harbour log of ${ids[7]}"`;
    await waitFor("a phrase to match once the rows are merged", async () => ((await searchIds(phrase)).length > 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    expect(await searchIds(phrase)).toEqual([ids[7]]);
    expect(await first.stop()).toBe(0);
    expect(await second.stop()).toBe(0);
  }, 180_000);

  it("refills a removed index directory from PostgreSQL when a worker starts, through a rebuild", async () => {
    const before = (await getIndexRebuildStatus({ db })).current.generationId;
    await rm(testSearchIndex().uri, { recursive: true, force: true });
    testSearchIndex().forgetAll();
    expect(await searchIds("harbour")).toEqual([]);

    const worker = startWorker();
    await waitFor("the worker to say it refills the index", () => (worker.output().includes("refilling it from PostgreSQL") ? true : undefined), {
      timeoutMs: 30_000,
      describe: worker.output,
    });
    await waitForRefill(before, worker.output);
    expect(worker.output()).toContain("the search index is empty while documents are indexed");
    expect(await indexRowInconsistencies(db)).toEqual({ lost: [], orphans: [], doubled: [] });
    expect((await getIndexRebuildStatus({ db })).lastRebuild).toMatchObject({ status: "current", docsDone: DOCUMENTS, docsFailed: 0 });
    expect(await worker.stop()).toBe(0);
  }, 180_000);

  it("refills an index that belongs to another database, and leaves a sound one alone", async () => {
    const before = (await getIndexRebuildStatus({ db })).current.generationId;
    await writeIndexMarker({ index: await testSearchIndex().index(), databaseId: "00000000-0000-4000-8000-000000000000" });

    const worker = startWorker();
    await waitForRefill(before, worker.output);
    expect(worker.output()).toContain("belongs to another database");
    expect(await indexRowInconsistencies(db)).toEqual({ lost: [], orphans: [], doubled: [] });
    expect(await worker.stop()).toBe(0);

    // Sound now: the next worker starts no refill.
    const current = (await getIndexRebuildStatus({ db })).current.generationId;
    const next = startWorker();
    await waitFor("the next worker to consume jobs", () => (next.output().includes("consuming") ? true : undefined), {
      timeoutMs: 30_000,
      describe: next.output,
    });
    expect(next.output()).not.toContain("refilling");
    expect((await getIndexRebuildStatus({ db })).status).toBe("idle");
    expect((await getIndexRebuildStatus({ db })).current.generationId).toBe(current);
    expect(await next.stop()).toBe(0);
  }, 180_000);
});
