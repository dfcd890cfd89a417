import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { indexDocuments } from "../indexing/index-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, currentIndexJobs, ingestTestDocument } from "../testing/factories";
import { deleteCcPair } from "./delete-cc-pair";
import { purgeCcPair } from "./purge-cc-pair";

const queue = await useTestJobQueue();
const { db, boss } = queue;

async function docsIndexed(ccPairId: number): Promise<number> {
  return (await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } })).docsIndexed;
}

describe("purgeCcPair", () => {
  it("keeps counts exact when it runs twice at once, batch by batch, while documents are being indexed", async () => {
    const doomed = await createTestPair(db, { name: "Doomed", source: "file" });
    const kept = await createTestPair(db, { name: "Kept", source: "file" });
    const exclusive = Array.from({ length: 40 }, (_, index) => `exclusive-${index}`);
    const shared = Array.from({ length: 40 }, (_, index) => `shared-${index}`);
    for (const id of exclusive) await ingestTestDocument(queue, { id, ccPairId: doomed });
    for (const id of shared) {
      await ingestTestDocument(queue, { id, ccPairId: doomed });
      await ingestTestDocument(queue, { id, ccPairId: kept });
    }
    // Half of everything is indexed before the deletion, the rest while it runs.
    const all = [...exclusive, ...shared];
    const jobs = await currentIndexJobs(db, all);
    await indexDocuments({ index: testSearchIndex(), db, jobs: jobs.filter((_, index) => index % 2 === 0) });

    await deleteCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId: doomed });
    const [first, second] = await Promise.all([
      purgeCcPair({ index: testSearchIndex(), db, ccPairId: doomed, batchSize: 7 }),
      purgeCcPair({ index: testSearchIndex(), db, ccPairId: doomed, batchSize: 5 }),
      indexDocuments({ index: testSearchIndex(), db, jobs: jobs.filter((_, index) => index % 2 === 1) }),
    ]);

    expect((first?.linksRemoved ?? 0) + (second?.linksRemoved ?? 0)).toBe(80);
    expect((first?.documentsDeleted ?? 0) + (second?.documentsDeleted ?? 0)).toBe(40);
    expect(await db.connectorCredentialPair.findUnique({ where: { id: doomed } })).toBeNull();
    expect(await db.document.count({ where: { id: { in: exclusive } } })).toBe(0);
    expect(await db.document.count({ where: { id: { in: shared } } })).toBe(40);
    // Every shared document got indexed (before or during the deletion) and counts for the kept pair.
    expect(await db.documentByCcPair.count({ where: { ccPairId: kept, hasBeenIndexed: true } })).toBe(40);
    expect(await docsIndexed(kept)).toBe(40);
  });

  it("never touches the default pair", async () => {
    expect(await purgeCcPair({ index: testSearchIndex(), db, ccPairId: 1 })).toEqual({ purged: false, linksRemoved: 0, documentsDeleted: 0 });
    expect(await db.connectorCredentialPair.findUnique({ where: { id: 1 } })).not.toBeNull();
  });
});
