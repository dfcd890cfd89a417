// The anchor of bench/e2e: the least work that makes an ingested document searchable in PostgreSQL.
// node:http and pg only: parse the ingestion body, then one transaction that upserts the document row
// and replaces its chunks (one per section) with their `to_tsvector`, under a GIN index. A document is
// searchable once that transaction commits, before the 200 is sent.
import pg from "pg";
import { inTransaction, serveJson } from "../lib/harness.mjs";

const { ANCHOR_DATABASE_URL, ANCHOR_PORT = "3102" } = process.env;
const pool = new pg.Pool({ connectionString: ANCHOR_DATABASE_URL, max: 16 });

await pool.query(`
  CREATE TABLE IF NOT EXISTS anchor_document (
    id text PRIMARY KEY, semantic_identifier text NOT NULL, link text, metadata jsonb NOT NULL,
    doc_updated_at timestamptz, version int NOT NULL DEFAULT 1, indexed_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS anchor_chunk (
    document_id text NOT NULL REFERENCES anchor_document ON DELETE CASCADE, chunk_index int NOT NULL,
    content text NOT NULL, link text, search_vector tsvector NOT NULL, PRIMARY KEY (document_id, chunk_index));
  CREATE INDEX IF NOT EXISTS anchor_chunk_search_vector_idx ON anchor_chunk USING GIN (search_vector);`);

async function ingest(text) {
  const { document } = JSON.parse(text);
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query(
      `INSERT INTO anchor_document AS d (id, semantic_identifier, link, metadata, doc_updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET semantic_identifier = EXCLUDED.semantic_identifier, link = EXCLUDED.link,
         metadata = EXCLUDED.metadata, doc_updated_at = EXCLUDED.doc_updated_at, version = d.version + 1, indexed_at = now()
       RETURNING (d.xmax = 0) AS inserted`,
      [document.id, document.semantic_identifier, document.sections[0]?.link ?? null, document.metadata ?? {}, document.doc_updated_at ?? null],
    );
    if (!rows[0].inserted) await client.query("DELETE FROM anchor_chunk WHERE document_id = $1", [document.id]);
    await client.query(
      `INSERT INTO anchor_chunk (document_id, chunk_index, content, link, search_vector)
       SELECT $1, s.ord - 1, s.content, s.link, to_tsvector('english', $2 || ' ' || s.content)
       FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS s(content, link, ord)`,
      [document.id, document.semantic_identifier, document.sections.map((section) => section.text), document.sections.map((section) => section.link ?? null)],
    );
    return { document_id: document.id, already_existed: !rows[0].inserted };
  });
}

serveJson(ANCHOR_PORT, "anchor", ingest);
