// HTTP-level factories for the web tests: data goes in through the REST routes, as a client sends it,
// on top of the core factories of @svc/core/testing (indexing runs in this process, as the worker would).
import { indexTestDocuments, testIngestionBody, type TestDocument } from "@svc/core/testing";
import type { AccessType, Db, DocumentSource } from "@svc/db";
import { CreatedCcPairSchema, FileUploadResponseSchema } from "@svc/schema";
import { expect } from "vitest";
import type { TestApp } from "./app";

/**
 * POSTs the document to /api/svc-api/ingestion (with the admin key unless one is given) and expects a
 * 200. Its section links to `https://example.com/<id>` unless `link` says otherwise.
 */
export async function ingestOverApi(app: TestApp, document: TestDocument, key?: string): Promise<void> {
  const response = await app.ingest(testIngestionBody({ link: `https://example.com/${document.id}`, ...document }), key);
  expect(response.status).toBe(200);
}

/** Indexes the documents at their current version, in this process, as the worker would. */
export async function indexNow(app: TestApp, ...ids: string[]): Promise<void> {
  await indexTestDocuments(app.db, ids);
}

/** ingestOverApi for each document, then one indexing batch for all of them. */
export async function ingestAndIndexOverApi(app: TestApp, ...documents: TestDocument[]): Promise<void> {
  for (const document of documents) await ingestOverApi(app, document);
  await indexNow(app, ...documents.map((document) => document.id));
}

/** POST /api/manage/admin/cc-pair with the admin key; returns the new pair's id. */
export async function createPairOverApi(
  app: TestApp,
  { name, source = "web", access = "public" }: { name: string; source?: DocumentSource; access?: AccessType },
): Promise<number> {
  const response = await app.request("POST", "/api/manage/admin/cc-pair", { body: { name, source, access_type: access } });
  expect(response.status).toBe(200);
  return CreatedCcPairSchema.parse(await response.json()).cc_pair_id;
}

/** The first bytes of a PNG and of a JPEG: enough for svc to recognise the type by content. */
export const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
export const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);

/** A multipart body with one `files` part per file. */
export function uploadForm(...files: [name: string, bytes: Uint8Array][]): FormData {
  const data = new FormData();
  for (const [name, bytes] of files) data.append("files", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return data;
}

/** POST /api/user/file/upload (with the admin key unless one is given, none for null). */
export async function uploadFiles(app: TestApp, data: FormData, key?: string | null): Promise<Response> {
  return app.request("POST", "/api/user/file/upload", { body: data, key });
}

/** Uploads one PNG over the API (admin key) and returns its `file_id`, for image sections. */
export async function uploadTestImage(app: TestApp, name = "image.png"): Promise<{ fileId: string }> {
  const response = await uploadFiles(app, uploadForm([name, PNG]));
  expect(response.status).toBe(200);
  const [uploaded] = FileUploadResponseSchema.parse(await response.json()).user_files;
  if (!uploaded) throw new Error(`${name} was rejected`);
  return { fileId: uploaded.file_id };
}

/**
 * A listing request that is slow for a real reason, not a test hook: its name filter matches
 * nothing, so PostgreSQL lowercases every pair's name; with createSlowListingPairs it runs seconds.
 */
export const SLOW_LISTING = { name_filter: "no such pair", get_all_connectors: true };

/** 600 pairs with 1 MB names (stored compressed, a few kB each), for SLOW_LISTING. */
export async function createSlowListingPairs(db: Db): Promise<void> {
  await db.$executeRaw`
    WITH c AS (
      INSERT INTO connector (name, source, updated_at) SELECT 'slow ' || g, 'web', now() FROM generate_series(1, 600) g RETURNING id
    ), cr AS (
      INSERT INTO credential (source) SELECT 'web' FROM generate_series(1, 600) RETURNING id
    ), pairs AS (
      SELECT c.id AS connector_id, cr.id AS credential_id, c.n
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM c) c
      JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM cr) cr USING (n)
    )
    INSERT INTO connector_credential_pair (name, connector_id, credential_id, access_type, updated_at)
    SELECT repeat('ab', 500000) || n, connector_id, credential_id, 'public', now() FROM pairs`;
}
