import { describe, expect, it } from "vitest";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, ingestTestDocument } from "../testing/factories";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { searchDocuments } from "../search/search-documents";
import { indexDocuments } from "./index-documents";

const queue = await useTestJobQueue();
const { db } = queue;

/** The documents the search index finds for `query` (it replaced the chunks' tsvector). */
async function search(query: string) {
  const { results } = await searchDocuments({
    db,
    index: testSearchIndex(),
    principal: OPERATOR_PRINCIPAL,
    request: { query, limit: 100, filters: null, principal: null },
  });
  return results.map((result) => ({ document_id: result.documentId }));
}

/** How many rows the current generation's index table holds for the document. */
async function indexRows(documentId: string): Promise<number> {
  const { id } = await db.indexGeneration.findFirstOrThrow({ where: { status: "current" } });
  const generation = await testSearchIndex().readable(id);
  if (generation === null) throw new Error(`no index table for generation ${id}`);
  return generation.table.countRows(`document_id = '${documentId}'`);
}

describe("indexDocuments", () => {
  it("writes searchable chunks, marks the document indexed and counts it for its pair", async () => {
    const ccPairId = await createTestPair(db, { name: "Wiki" });
    await ingestTestDocument(queue, { id: "idx-1", text: "Kubernetes upgrade runbook", ccPairId, fields: { metadata: { team: "search" } } });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-1", version: 1 }] });

    expect(await db.document.findUnique({ where: { id: "idx-1" } })).toMatchObject({
      indexingStatus: "indexed",
      indexedVersion: 1,
      chunkCount: 1,
    });
    expect(await search("kubernetes")).toEqual([{ document_id: "idx-1" }]);
    expect(await search("search")).toEqual([{ document_id: "idx-1" }]); // metadata suffix
    expect(await db.documentByCcPair.findUnique({ where: { documentId_ccPairId: { documentId: "idx-1", ccPairId } } })).toMatchObject({
      hasBeenIndexed: true,
    });
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } })).docsIndexed).toBe(1);

    // Running the same job again changes nothing: the count stays exact.
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-1", version: 1 }] });
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } })).docsIndexed).toBe(1);
  });

  it("skips a job for a superseded version and indexes the latest one", async () => {
    await ingestTestDocument(queue, { id: "idx-2", text: "first draft about pelicans" });
    await ingestTestDocument(queue, { id: "idx-2", text: "final text about flamingos" });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-2", version: 1 }] });
    expect((await db.document.findUniqueOrThrow({ where: { id: "idx-2" } })).indexingStatus).toBe("queued");
    // The skipped job leaves no write intent behind: it would turn the next job's append into a replace.
    expect(await db.$queryRaw`SELECT document_id FROM index_write_intent WHERE document_id = 'idx-2'`).toEqual([]);
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-2", version: 2 }] });
    expect(await search("flamingos")).toEqual([{ document_id: "idx-2" }]);
    expect(await search("pelicans")).toEqual([]);
  });

  it("writes a document of more chunks than one index write takes whole and once, and again when it shrinks", async () => {
    // ~1,100 chunks of ~2,000 characters: more than one slice of the search-index write (1,000 rows).
    const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i % 997}`).join(" ");
    const text = (body: number) => `openingword ${words(body)} closingword`;
    await ingestTestDocument(queue, { id: "idx-big", text: text(450_000) });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-big", version: 1 }] });
    const { chunkCount } = await db.document.findUniqueOrThrow({ where: { id: "idx-big" } });
    expect(chunkCount).toBeGreaterThan(1_000);
    expect(await indexRows("idx-big")).toBe(chunkCount);
    expect(await search("openingword")).toEqual([{ document_id: "idx-big" }]);
    expect(await search("closingword")).toEqual([{ document_id: "idx-big" }]);

    // A retried job changes nothing; a shorter version leaves exactly its own chunks.
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-big", version: 1 }] });
    expect(await indexRows("idx-big")).toBe(chunkCount);
    await ingestTestDocument(queue, { id: "idx-big", text: text(300_000) });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-big", version: 2 }] });
    const shrunk = await db.document.findUniqueOrThrow({ where: { id: "idx-big" } });
    expect(shrunk).toMatchObject({ indexingStatus: "indexed", indexedVersion: 2 });
    expect(shrunk.chunkCount).toBeLessThan(chunkCount ?? 0);
    expect(await indexRows("idx-big")).toBe(shrunk.chunkCount);
  }, 120_000);

  it("appends a new document's rows once, and a retry after its transaction failed past the index write replaces them", async () => {
    const intentOf = (documentId: string) => db.$queryRaw<{ writes: number }[]>`SELECT writes FROM index_write_intent WHERE document_id = ${documentId}`;
    await ingestTestDocument(queue, { id: "idx-append", text: "Quarterly heron census" });
    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-append", version: 1 }] });
    expect(await indexRows("idx-append")).toBe(1);
    expect(await intentOf("idx-append")).toEqual([]);
    expect(await search("heron")).toEqual([{ document_id: "idx-append" }]);

    // The index takes the rows, then PostgreSQL refuses the commit (as a worker killed between the two
    // leaves it): the retry must not add the same rows again beside them.
    const words = Array.from({ length: 2_000 }, (_, i) => `egret${i % 50}`).join(" ");
    await ingestTestDocument(queue, { id: "idx-unconfirmed", text: `wetland survey ${words}` });
    await db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_indexed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await db.$executeRawUnsafe(`
      CREATE TRIGGER refuse_indexed BEFORE UPDATE ON document FOR EACH ROW
      WHEN (NEW.id = 'idx-unconfirmed' AND NEW.indexing_status = 'indexed') EXECUTE FUNCTION refuse_indexed()`);
    try {
      await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-unconfirmed", version: 1 }] })).rejects.toThrow();
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_indexed ON document`);
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_indexed`);
    }
    const written = await indexRows("idx-unconfirmed");
    expect(written).toBeGreaterThan(1);
    expect(await intentOf("idx-unconfirmed")).toEqual([{ writes: 1 }]);

    await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "idx-unconfirmed", version: 1 }] });
    const indexed = await db.document.findUniqueOrThrow({ where: { id: "idx-unconfirmed" } });
    expect(indexed).toMatchObject({ indexingStatus: "indexed", chunkCount: written });
    expect(await indexRows("idx-unconfirmed")).toBe(written);
    expect(await intentOf("idx-unconfirmed")).toEqual([]);
  });

  it("ignores a job whose document no longer exists", async () => {
    await expect(indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: "gone", version: 1 }] })).resolves.toBeUndefined();
  });
});
