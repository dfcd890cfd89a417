import { IngestionDocumentSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import type { Principal } from "../auth/principal";
import { createCcPair } from "../connectors/create-cc-pair";
import { ingestDocument } from "../documents/ingest-document";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { indexDocuments } from "./index-documents";

const admin: Principal = { apiKeyId: 0, name: "test", role: "admin", scopeCcPairIds: null };
const { db, boss } = await useTestJobQueue();

async function ingest(id: string, text: string, ccPairId?: number) {
  return ingestDocument({
    db,
    boss,
    principal: admin,
    input: IngestionDocumentSchema.parse({
      document: { id, semantic_identifier: `Doc ${id}`, sections: [{ text }], metadata: { team: "search" } },
      cc_pair_id: ccPairId,
    }),
  });
}

async function search(query: string) {
  return db.$queryRaw<{ document_id: string }[]>`
    SELECT DISTINCT document_id FROM document_chunk WHERE search_vector @@ plainto_tsquery('english', ${query})`;
}

describe("indexDocuments", () => {
  it("writes searchable chunks, marks the document indexed and counts it for its pair", async () => {
    const pair = await createCcPair({ db, name: "Wiki", source: "web", accessType: "public" });
    await ingest("idx-1", "Kubernetes upgrade runbook", pair.ccPairId);
    await indexDocuments({ db, jobs: [{ documentId: "idx-1", version: 1 }] });

    expect(await db.document.findUnique({ where: { id: "idx-1" } })).toMatchObject({
      indexingStatus: "indexed",
      indexedVersion: 1,
      chunkCount: 1,
    });
    expect(await search("kubernetes")).toEqual([{ document_id: "idx-1" }]);
    expect(await search("search")).toEqual([{ document_id: "idx-1" }]); // metadata suffix
    expect(await db.documentByCcPair.findUnique({ where: { documentId_ccPairId: { documentId: "idx-1", ccPairId: pair.ccPairId } } })).toMatchObject({
      hasBeenIndexed: true,
    });
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: pair.ccPairId } })).docsIndexed).toBe(1);

    // Running the same job again changes nothing: the count stays exact.
    await indexDocuments({ db, jobs: [{ documentId: "idx-1", version: 1 }] });
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: pair.ccPairId } })).docsIndexed).toBe(1);
  });

  it("skips a job for a superseded version and indexes the latest one", async () => {
    await ingest("idx-2", "first draft about pelicans");
    await ingest("idx-2", "final text about flamingos");
    await indexDocuments({ db, jobs: [{ documentId: "idx-2", version: 1 }] });
    expect((await db.document.findUniqueOrThrow({ where: { id: "idx-2" } })).indexingStatus).toBe("queued");
    await indexDocuments({ db, jobs: [{ documentId: "idx-2", version: 2 }] });
    expect(await search("flamingos")).toEqual([{ document_id: "idx-2" }]);
    expect(await search("pelicans")).toEqual([]);
  });

  it("ignores a job whose document no longer exists", async () => {
    await expect(indexDocuments({ db, jobs: [{ documentId: "gone", version: 1 }] })).resolves.toBeUndefined();
  });
});
