import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { cancelIndexRebuild } from "../indexing/cancel-index-rebuild";
import { indexDocuments } from "../indexing/index-documents";
import { searchDocuments } from "../search/search-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { ingestTestDocument } from "../testing/factories";
import { testSearchIndex } from "../testing/test-search-index";
import { MergeSchedule } from "./merge-schedule";
import { optimizeSearchIndex } from "./optimize-search-index";
import { startIndexRebuild } from "./start-index-rebuild";

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

  it("holds a due merge off while this process indexes a large document, and merges once it is done", async () => {
    await db.indexGeneration.updateMany({ data: { lastSearchedAt: null } });
    const schedule = new MergeSchedule({ tailRows: 1, tailShare: 0, searchedWithinSeconds: 60, quietSeconds: 3_600 });
    await ingestAndIndex("sched-held", "ibis roosting trees");
    const release = testSearchIndex().holdMerges();
    const [held] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(held).toMatchObject({ action: null, unmergedRows: 1 });
    // Found meanwhile, by the scan of unmerged rows.
    expect(await search("ibis")).toEqual(["sched-held"]);

    release();
    const [merged] = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
    expect(merged).toMatchObject({ action: "merge", unmergedRows: 0 });
  });

  it("merges everything waiting when called without a schedule, as tests and rebuilds do", async () => {
    await ingestAndIndex("sched-4", "stork wintering sites");
    const [merged] = await optimizeSearchIndex({ db, index: testSearchIndex() });
    expect(merged).toMatchObject({ action: "merge", unmergedRows: 0 });
  });

  it("never merges a generation being built: only its key B-trees are brought up to date, until a forced run", async () => {
    await db.indexGeneration.updateMany({ data: { lastSearchedAt: null } });
    const { rebuild } = await startIndexRebuild({ db, boss: queue.boss, principal: OPERATOR_PRINCIPAL });
    const buildingId = rebuild!.generationId;
    try {
      const schedule = new MergeSchedule({ tailRows: 1, tailShare: 0, searchedWithinSeconds: 60, quietSeconds: 3_600 });
      // Indexing writes the document into the current generation and the one being built.
      await ingestAndIndex("sched-5", "spoonbill roosting trees");
      const runs = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
      const current = (await currentGeneration()).id;
      expect(runs.find((run) => run.generationId === current)).toMatchObject({ action: "merge", unmergedRows: 0 });
      // The building generation's FTS tail waits for the rebuild's own optimize; its keys do not.
      expect(runs.find((run) => run.generationId === buildingId)).toMatchObject({ action: "keys", unmergedRows: 1 });
      const building = (await testSearchIndex().readable(buildingId))!;
      expect(await building.table.indexStats("document_id_idx")).toMatchObject({ numUnindexedRows: 0, numIndexedRows: 1 });
      expect(await building.table.indexStats("chunk_id_idx")).toMatchObject({ numUnindexedRows: 0, numIndexedRows: 1 });

      // A new version replaces its row through them: still one row, of the new text.
      await ingestAndIndex("sched-5", "spoonbill feeding flats");
      const rows = (await building.table.query().where("document_id = 'sched-5'").select(["text"]).toArray()) as { text: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]?.text).toContain("feeding flats");
      const again = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
      expect(again.find((run) => run.generationId === buildingId)).toMatchObject({ action: "keys" });

      // Nothing written since: nothing to do. The forced run compacts and merges it like any table.
      const idle = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule });
      expect(idle.find((run) => run.generationId === buildingId)).toMatchObject({ action: null, unmergedRows: 1 });
      const forced = await optimizeSearchIndex({ db, index: testSearchIndex(), schedule, force: true });
      expect(forced.find((run) => run.generationId === buildingId)).toMatchObject({ action: "compaction", unmergedRows: 0 });
    } finally {
      await cancelIndexRebuild({ db, boss: queue.boss, principal: OPERATOR_PRINCIPAL });
    }
  });
});
