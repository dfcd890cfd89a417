import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { indexDocuments } from "../indexing/index-documents";
import { searchDocuments } from "../search/search-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { ingestTestDocument } from "../testing/factories";
import { testSearchIndex } from "../testing/test-search-index";
import { MergeSchedule } from "./merge-schedule";
import { optimizeSearchIndex } from "./optimize-search-index";

const queue = await useTestJobQueue();
const { db } = queue;

async function ingestAndIndex(id: string, text: string): Promise<void> {
  const job = await ingestTestDocument(queue, { id, text });
  await indexDocuments({ db, index: testSearchIndex(), jobs: [job] });
}

async function search(query: string): Promise<string[]> {
  const { results } = await searchDocuments({
    db,
    index: testSearchIndex(),
    principal: OPERATOR_PRINCIPAL,
    request: { query, limit: 10, filters: null, principal: null },
  });
  return results.map((result) => result.documentId);
}

async function currentGeneration() {
  return db.indexGeneration.findFirstOrThrow({ where: { status: "current" } });
}

describe("optimizeSearchIndex on the worker's schedule", () => {
  it("lets new rows nobody searches wait, and merges them once a search reads the generation", async () => {
    // Writes that never pause and a tail bound far off: only a search can make the rows due.
    const schedule = new MergeSchedule({ tailRows: 10_000, tailShare: 0, searchedWithinSeconds: 60, quietSeconds: 3_600 });
    await ingestAndIndex("sched-1", "pelican migration routes");
    const [waiting] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(waiting).toMatchObject({ action: null, seconds: null });
    expect(waiting?.unmergedRows).toBeGreaterThan(0);

    // Unmerged rows are found all the same; the search stamps the generation for the worker.
    expect(await search("pelican")).toEqual(["sched-1"]);
    const generation = await waitFor("the search's stamp", async () => {
      const current = await currentGeneration();
      return current.lastSearchedAt === null ? undefined : current;
    });
    expect(Date.now() - generation.lastSearchedAt!.getTime()).toBeLessThan(60_000);

    const [merged] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(merged).toMatchObject({ generationId: generation.id, action: "merge", unmergedRows: 0 });
    expect(await search("pelican")).toEqual(["sched-1"]);
  });

  it("merges rows nobody searches once the tail reaches its bound", async () => {
    await db.indexGeneration.updateMany({ data: { lastSearchedAt: null } });
    const schedule = new MergeSchedule({ tailRows: 2, tailShare: 0, searchedWithinSeconds: 60, quietSeconds: 3_600 });
    await ingestAndIndex("sched-2", "heron nesting season");
    const [first] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(first).toMatchObject({ action: null, unmergedRows: 1 });

    await ingestAndIndex("sched-3", "egret feeding grounds");
    const [second] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(second).toMatchObject({ action: "merge", unmergedRows: 0 });
    expect((await currentGeneration()).lastSearchedAt).toBeNull();
  });

  it("merges everything waiting when called without a schedule, as tests and rebuilds do", async () => {
    await ingestAndIndex("sched-4", "stork wintering sites");
    const [merged] = await optimizeSearchIndex({ db, index: testSearchIndex() });
    expect(merged).toMatchObject({ action: "merge", unmergedRows: 0 });
  });
});
