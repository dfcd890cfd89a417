// The LanceDB anchor of bench/e2e (issue 44, point 4): the least work that makes an ingested document
// searchable the way svc makes it searchable. node:http, pg and LanceDB only: parse the ingestion body,
// chunk the document with svc's own chunker (buildChunks, the default 512-token chunks), append its
// chunks' searched texts to one LanceDB table that has svc's FTS index on `text` (same tokenizer,
// language and positions), then upsert the document row in PostgreSQL in one statement. A document is
// searchable once that row commits, before the 200 is sent; its rows are in the index before (svc's
// write order too). Appends are group-committed, as svc's are: requests that come while a commit is in
// flight share the next one. What svc does beyond this (a job queue, status and attempts, sections and
// chunks kept in PostgreSQL, the access columns and their indexes, merges) is what the ratio prices.
//   node --import tsx bench/e2e/lance-anchor-server.mjs   (env: ANCHOR_DATABASE_URL, ANCHOR_PORT, ANCHOR_INDEX_DIR)
// (tsx: the chunker is TypeScript source in packages/core.)
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import pg from "pg";
import { ensureLanceCpuThreads, resolveTextSearchLanguage } from "@svc/search-index";
import { buildChunks, searchedText } from "../../packages/core/src/indexing/build-chunks.ts";
import { serveJson } from "../lib/harness.mjs";

const { ANCHOR_DATABASE_URL, ANCHOR_PORT = "3103" } = process.env;
const indexDir = process.env.ANCHOR_INDEX_DIR ?? mkdtempSync(path.join(os.tmpdir(), "lance-anchor-"));
// The same native thread pool as svc's processes.
ensureLanceCpuThreads();
// LanceDB and apache-arrow as @svc/search-index loads them (bench depends on that package only).
const requireFromIndex = createRequire(createRequire(import.meta.url).resolve("@svc/search-index"));
const lancedb = requireFromIndex("@lancedb/lancedb");
const arrow = requireFromIndex("apache-arrow");

const pool = new pg.Pool({ connectionString: ANCHOR_DATABASE_URL, max: 16 });
await pool.query(`
  CREATE TABLE IF NOT EXISTS lance_anchor_document (
    id text PRIMARY KEY, semantic_identifier text NOT NULL, title text, metadata jsonb NOT NULL,
    sections jsonb NOT NULL, doc_updated_at timestamptz, version int NOT NULL DEFAULT 1,
    indexed_at timestamptz NOT NULL DEFAULT now())`);

const schema = new arrow.Schema([
  new arrow.Field("chunk_id", new arrow.Utf8(), false),
  new arrow.Field("document_id", new arrow.Utf8(), false),
  new arrow.Field("chunk_index", new arrow.Int32(), false),
  new arrow.Field("text", new arrow.Utf8(), false),
]);
const connection = await lancedb.connect(indexDir);
const table = await connection.createEmptyTable("chunks", schema, { mode: "create", existOk: true });
// svc's FTS index (create-generation-table.ts, ftsIndex) for the default `english` configuration.
const { ftsOptions } = resolveTextSearchLanguage("english");
await table.createIndex("text", {
  config: lancedb.Index.fts({ ...ftsOptions, withPosition: true, baseTokenizer: "simple", lowercase: true, asciiFolding: true }),
});

/** Group commit: one append in flight; the rows that arrive meanwhile go together in the next. */
let waiting = [];
let committing = false;
function append(rows) {
  return new Promise((resolve, reject) => {
    waiting.push({ rows, resolve, reject });
    if (!committing) void commitWaiting();
  });
}
async function commitWaiting() {
  committing = true;
  while (waiting.length > 0) {
    const group = waiting;
    waiting = [];
    try {
      await table.add(lancedb.makeArrowTable(group.flatMap((entry) => entry.rows), { schema }));
      for (const entry of group) entry.resolve();
    } catch (error) {
      for (const entry of group) entry.reject(error);
    }
  }
  committing = false;
}

async function ingest(text) {
  const { document } = JSON.parse(text);
  const chunks = buildChunks({
    semanticIdentifier: document.semantic_identifier,
    title: document.title ?? null,
    metadata: document.metadata ?? {},
    sections: document.sections.map((section) => ({ kind: "text", text: section.text ?? "", link: section.link ?? null, imageFileId: null })),
  });
  await append(
    chunks.map((chunk) => ({ chunk_id: `${chunk.chunkIndex}:${document.id}`, document_id: document.id, chunk_index: chunk.chunkIndex, text: searchedText(chunk) })),
  );
  const { rows } = await pool.query(
    `INSERT INTO lance_anchor_document AS d (id, semantic_identifier, title, metadata, sections, doc_updated_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET semantic_identifier = EXCLUDED.semantic_identifier, title = EXCLUDED.title, metadata = EXCLUDED.metadata,
       sections = EXCLUDED.sections, doc_updated_at = EXCLUDED.doc_updated_at, version = d.version + 1, indexed_at = now()
     RETURNING (d.xmax = 0) AS inserted`,
    [document.id, document.semantic_identifier, document.title ?? null, document.metadata ?? {}, JSON.stringify(document.sections), document.doc_updated_at ?? null],
  );
  return { document_id: document.id, already_existed: !rows[0].inserted };
}

serveJson(ANCHOR_PORT, "lance-anchor", ingest);
