import { testSearchIndex } from "@svc/core/testing";
import { indexDocumentJob, indexDocuments } from "@svc/core";
import { ConsoleDocumentSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { getServices } from "../../server/services";
import { useTestApp } from "../app";
import { indexNow, ingestAndIndexOverApi, ingestOverApi } from "../factories";
import { expectTrpcError, useConsoleFixture } from "./console";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "./poison";

const app = useTestApp();

const fixture = useConsoleFixture(app);

describe("documents.search and documents.get", () => {
  it("search as REST does, with <mark>ed snippets, within the key's scope", async () => {
    await ingestAndIndexOverApi(app, { id: "holidays", text: "Holidays are booked in the HR portal.", ccPairId: fixture.ownPair });
    await ingestAndIndexOverApi(app, { id: "secret-holidays", text: "Holidays of team B.", ccPairId: fixture.otherPrivatePair });
    const asAdmin = await fixture.admin.documents.search({ query: "holidays" });
    expect(asAdmin.results.map((result) => result.documentId).sort()).toEqual(["holidays", "secret-holidays"]);
    const asCurator = await fixture.scopedCurator.documents.search({ query: "holidays", filters: { ccPairIds: [fixture.ownPair] } });
    expect(asCurator.results.map((result) => result.documentId)).toEqual(["holidays"]);
    expect(asCurator.results[0]?.chunks[0]?.snippet).toContain("<mark>Holidays</mark>");
    await expectTrpcError(fixture.admin.documents.search({ query: "" }), "BAD_REQUEST");
    // The same limits as REST: the procedure takes the REST request schema.
    await expectTrpcError(fixture.admin.documents.search({ query: "x".repeat(1001) }), "BAD_REQUEST");
    await expectTrpcError(fixture.admin.documents.search({ query: Array.from({ length: 65 }, (_, i) => `w${i}`).join(" ") }), "BAD_REQUEST");
    await expectTrpcError(fixture.scopedCurator.documents.search({ query: "x", principal: { email: "a@example.com", group_ids: [] } }), "FORBIDDEN");
  });

  it("matches any of the query's words by default and every word with match: all, as the console's Match select sends it", async () => {
    await ingestAndIndexOverApi(app, { id: "leave-form", text: "Parental leave is requested on the wistle form.", ccPairId: fixture.ownPair });
    const question = "how do I request parental leave on paper";
    expect((await fixture.admin.documents.search({ query: question })).results[0]?.documentId).toBe("leave-form");
    expect((await fixture.admin.documents.search({ query: question, match: "all" })).results).toEqual([]);
    expect((await fixture.admin.documents.search({ query: "parental wistle", match: "all" })).results.map((result) => result.documentId)).toEqual(["leave-form"]);
  });

  it("get returns the REST body plus the indexed chunks; invisible documents are NOT_FOUND", async () => {
    const document = await fixture.scopedCurator.documents.get({ documentId: "holidays" });
    // Every field is the camelCase schema's, none more.
    expect(ConsoleDocumentSchema.parse(document)).toEqual(document);
    expect(document).toMatchObject({
      id: "holidays",
      indexingStatus: "indexed",
      currentVersion: 1,
      indexedVersion: 1,
      chunkCount: 1,
      ccPairIds: [fixture.ownPair],
      sections: [{ text: "Holidays are booked in the HR portal.", link: "https://example.com/holidays", imageFileId: null }],
      chunks: [{ chunkIndex: 0, content: "Holidays are booked in the HR portal.", tokenCount: expect.any(Number) as unknown, imageFileId: null, link: "https://example.com/holidays" }],
    });
    await expectTrpcError(fixture.scopedCurator.documents.get({ documentId: "secret-holidays" }), "NOT_FOUND");
    await expectTrpcError(fixture.admin.documents.get({ documentId: "nope" }), "NOT_FOUND");
  });
});

describe("documents.delete", () => {
  it("deletes within the key's scope only", async () => {
    await ingestAndIndexOverApi(app, { id: "to-delete", text: "Short-lived.", ccPairId: fixture.ownPair });
    await expectTrpcError(fixture.scopedCurator.documents.delete({ documentId: "secret-holidays" }), "NOT_FOUND");
    expect(await fixture.scopedCurator.documents.delete({ documentId: "to-delete" })).toEqual({ ok: true });
    expect(await app.db.document.count({ where: { id: "to-delete" } })).toBe(0);
    await expectTrpcError(fixture.admin.documents.delete({ documentId: "to-delete" }), "NOT_FOUND");
  });
});

describe("documents.retry", () => {
  it("sends a failed document's current version to indexing again; it stays failed until a try succeeds", async () => {
    await installPoisonTrigger(app.db);
    try {
      await ingestOverApi(app, { id: "fragile", text: `This one holds a ${POISON}.`, ccPairId: fixture.ownPair });
      await indexNow(app, "fragile").catch(() => undefined); // it fails: the document says so
    } finally {
      await removePoisonTrigger(app.db);
    }
    expect(await fixture.admin.documents.get({ documentId: "fragile" })).toMatchObject({ indexingStatus: "failed", lastError: expect.stringContaining("chunk rejected") as unknown, chunks: [] });

    expect(await fixture.scopedCurator.documents.retry({ documentId: "fragile" })).toEqual({ ok: true });
    // A retry is a request, not a fix: the failure stays visible, its tries start again.
    const document = await fixture.admin.documents.get({ documentId: "fragile" });
    expect(document).toMatchObject({ indexingStatus: "failed", currentVersion: 1 });
    expect((await app.db.document.findUniqueOrThrow({ where: { id: "fragile" } })).indexAttempts).toBe(0);

    const { boss } = await getServices();
    const jobs = await boss.findJobs<{ documentId: string; version: number }>(indexDocumentJob.name, { data: { documentId: "fragile" }, queued: true });
    // The ingestion's own job and the retry's.
    expect(jobs.map((job) => job.data)).toContainEqual({ documentId: "fragile", version: 1 });
    expect(jobs.length).toBe(2);
    await indexDocuments({ index: testSearchIndex(), db: app.db, jobs: [{ documentId: "fragile", version: 1 }] });
    expect(await fixture.admin.documents.get({ documentId: "fragile" })).toMatchObject({ indexingStatus: "indexed", chunkCount: 1, lastError: null });
  });

  it("refuses documents that are not failed, unknown ones and those outside the key's scope", async () => {
    await expectTrpcError(fixture.admin.documents.retry({ documentId: "holidays" }), "CONFLICT");
    await expectTrpcError(fixture.admin.documents.retry({ documentId: "nope" }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.documents.retry({ documentId: "secret-holidays" }), "NOT_FOUND");
  });
});

describe("documents.get during an index rebuild", () => {
  it("shows the chunks search serves, not the copy the rebuild is building", async () => {
    expect(await fixture.admin.health.startRebuild({ chunkTokenLimit: 256 })).toMatchObject({ status: "building" });
    // Indexing during a rebuild writes the document to both generations.
    await ingestAndIndexOverApi(app, { id: "rebuilt", text: "Written to the serving index and to the one being built.", ccPairId: fixture.ownPair });
    expect(await app.db.documentChunk.count({ where: { documentId: "rebuilt" } })).toBe(2);
    const document = await fixture.admin.documents.get({ documentId: "rebuilt" });
    expect(document.chunks.map((chunk) => chunk.content)).toEqual(["Written to the serving index and to the one being built."]);
    expect(document.chunkCount).toBe(1);
  });
});
