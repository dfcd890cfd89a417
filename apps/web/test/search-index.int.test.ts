import { purgeIndexGeneration, runIndexRebuild } from "@svc/core";
import { createTestPair, testSearchIndex } from "@svc/core/testing";
import { DocumentDetailSchema, IndexRebuildStatusSchema, SearchResponseSchema, type IndexRebuildStatus } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { getServices } from "../server/services";
import { ERROR_DETAIL, useTestApp } from "./app";
import { ingestAndIndexOverApi } from "./factories";

const app = useTestApp();
const REBUILD = "/api/manage/admin/search-index/rebuild";

async function status(response: Response, expected: number): Promise<IndexRebuildStatus> {
  expect(response.status).toBe(expected);
  return IndexRebuildStatusSchema.parse(await response.json());
}

/** Ingests over HTTP and runs the document's indexing job, as the worker would. */

/** `match: "all"` takes the query's words as typed (`any` would also match a word one edit away: "runner" for "runners"). */
async function searchIds(query: string): Promise<string[]> {
  const response = await app.request("POST", "/api/svc-api/search", { body: { query, match: "all" } });
  expect(response.status).toBe(200);
  return SearchResponseSchema.parse(await response.json()).results.map((result) => result.document_id);
}

describe("/api/manage/admin/search-index/rebuild", () => {
  it("reports, starts (202), refuses a second start (409) and cancels a rebuild", async () => {
    const idle = await status(await app.request("GET", REBUILD), 200);
    expect(idle).toEqual({
      status: "idle",
      current: { generation_id: 1, chunk_token_limit: 512, text_search_config: "english" },
      rebuild: null,
      last_rebuild: null,
    });

    // No body: the current settings.
    const started = await status(await app.request("POST", REBUILD), 202);
    expect(started).toMatchObject({
      status: "building",
      current: { generation_id: 1 },
      rebuild: { status: "building", chunk_token_limit: 512, text_search_config: "english", docs_done: 0, docs_failed: 0, started_at: null },
    });
    expect(await status(await app.request("GET", REBUILD), 200)).toEqual(started);
    const conflict = await app.request("POST", REBUILD, { body: { chunk_token_limit: 256 } });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual(ERROR_DETAIL);

    const canceled = await status(await app.request("DELETE", REBUILD), 200);
    expect(canceled).toMatchObject({
      status: "idle",
      rebuild: null,
      last_rebuild: { generation_id: started.rebuild?.generation_id, status: "canceled" },
    });
    const nothingToCancel = await app.request("DELETE", REBUILD);
    expect(nothingToCancel.status).toBe(404);
    expect(await nothingToCancel.json()).toEqual(ERROR_DETAIL);
  });

  it("rebuilds with a new chunk size and text-search configuration that search and documents then reflect", async () => {
    const ccPairId = await createTestPair(app.db, { name: "Rebuilt wiki" });
    const long = Array.from({ length: 60 }, (_, index) => `Paragraph ${index} about tides and the harbour master's log.`).join(" ");
    await ingestAndIndexOverApi(app, { id: "rest-long", text: long, ccPairId });
    await ingestAndIndexOverApi(app, { id: "rest-short", text: "The runners crossed the bridge.", ccPairId });
    const chunkCount = async () =>
      DocumentDetailSchema.parse(await (await app.request("GET", "/api/svc-api/ingestion/rest-long")).json()).chunk_count;
    const before = await chunkCount();

    const started = await status(
      await app.request("POST", REBUILD, { body: { chunk_token_limit: "128", text_search_config: "simple" } }),
      202,
    );
    expect(started.rebuild).toMatchObject({ chunk_token_limit: 128, text_search_config: "simple", docs_total: 2 });
    expect(await searchIds("runner")).toEqual(["rest-short"]);

    const { boss } = await getServices();
    const generationId = started.rebuild?.generation_id ?? 0;
    expect(await runIndexRebuild({ index: testSearchIndex(), db: app.db, boss, generationId })).toMatchObject({ swapped: true, docsDone: 2 });
    await purgeIndexGeneration({ index: testSearchIndex(), db: app.db, generationId: started.current.generation_id });

    expect(await status(await app.request("GET", REBUILD), 200)).toMatchObject({
      status: "idle",
      current: { generation_id: generationId, chunk_token_limit: 128, text_search_config: "simple" },
      rebuild: null,
      last_rebuild: { generation_id: generationId, status: "current", docs_total: 2, docs_done: 2, docs_failed: 0 },
    });
    expect(await chunkCount()).toBeGreaterThan((before ?? 0) * 2);
    expect(await searchIds("runner")).toEqual([]);
    expect(await searchIds("runners")).toEqual(["rest-short"]);
    expect(await searchIds("harbour")).toEqual(["rest-long"]);
  });

  it("validates the body (422), and needs an unscoped admin key (401, 403)", async () => {
    const tooSmall = await app.request("POST", REBUILD, { body: { chunk_token_limit: 10 } });
    expect(tooSmall.status).toBe(422);
    expect(await tooSmall.json()).toMatchObject({ detail: [{ type: "greater_than_equal", loc: ["body", "chunk_token_limit"] }] });
    const unknownConfig = await app.request("POST", REBUILD, { body: { text_search_config: "klingon" } });
    expect(unknownConfig.status).toBe(422);
    expect(await unknownConfig.json()).toMatchObject({
      detail: [{ type: "value_error", loc: ["body", "text_search_config"], input: "klingon" }],
    });
    const notJson = await app.request("POST", REBUILD, { body: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(422);

    expect((await app.request("GET", REBUILD, { key: null })).status).toBe(401);
    const curator = await app.createKey("curator");
    expect((await app.request("GET", REBUILD, { key: curator })).status).toBe(403);
    expect((await app.request("POST", REBUILD, { key: curator })).status).toBe(403);
    const scopedAdmin = await app.createKey("admin", [await createTestPair(app.db, { name: "Scoped" })]);
    expect((await app.request("GET", REBUILD, { key: scopedAdmin })).status).toBe(200);
    expect((await app.request("POST", REBUILD, { key: scopedAdmin })).status).toBe(403);
    expect((await app.request("DELETE", REBUILD, { key: scopedAdmin })).status).toBe(403);
    // Nothing was started by any of these.
    expect((await status(await app.request("GET", REBUILD), 200)).status).toBe("idle");
  });
});
