import type { Db } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJobQueue, type PgBoss } from "../jobs/job-queue";
import { createTestPair } from "../testing/factories";
import { writeDocuments, type DocumentWrite } from "./write-documents";

let database: TestDatabase;
let db: Db;
let boss: PgBoss;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  boss = await startJobQueue({ databaseUrl: database.databaseUrl, role: "producer" });
});
afterAll(async () => {
  await boss.stop({ graceful: false, close: true });
  await database.drop();
});

function write(id: string, ccPairId: number): DocumentWrite {
  return {
    id,
    semantic_identifier: id,
    title: null,
    source: "ingestion_api",
    link: null,
    metadata: {},
    doc_updated_at: new Date().toISOString(),
    primary_owners: null,
    secondary_owners: null,
    additional_info: null,
    doc_metadata: null,
    external_user_emails: [],
    external_user_group_ids: [],
    is_public: null,
    chunk_count: null,
    sections: [{ position: 0, kind: "text", text: id, link: null, image_file_id: null }],
    cc_pair_id: ccPairId,
    write_scope: null,
  };
}

describe("writeDocuments", () => {
  it("writes a batch and one job per document, in one transaction", async () => {
    const written = await writeDocuments({ db, boss, documents: [write("batch-b", 1), write("batch-a", 1)] });
    expect(written).toEqual([
      { id: "batch-b", version: 1, inserted: true, applied: true },
      { id: "batch-a", version: 1, inserted: true, applied: true },
    ]);
    const jobs = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM pgboss.job WHERE name = 'index-document' AND data->>'documentId' IN ('batch-a', 'batch-b')`;
    expect(Number(jobs[0]?.n)).toBe(2);
  });

  it("refuses, writing nothing, a batch whose pair began deleting after the request was checked", async () => {
    const pair = await createTestPair(db, { name: "Leaving" });
    await db.connectorCredentialPair.update({ where: { id: pair }, data: { status: "DELETING" } });
    await expect(writeDocuments({ db, boss, documents: [write("late-1", 1), write("late-2", pair)] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect(await db.document.count({ where: { id: { in: ["late-1", "late-2"] } } })).toBe(0);
  });

  it("refuses with a conflict, writing nothing, a document whose image file was deleted after the request was checked", async () => {
    const gone = { ...write("late-image", 1), sections: [{ position: 0, kind: "image" as const, text: null, link: null, image_file_id: "00000000-0000-4000-8000-000000000000" }] };
    await expect(writeDocuments({ db, boss, documents: [gone] })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await db.document.count({ where: { id: "late-image" } })).toBe(0);
  });
});
