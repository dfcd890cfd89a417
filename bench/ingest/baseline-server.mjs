// The baseline of bench/ingest: the least a server can do for an ingestion. node:http and pg only:
// parse the JSON, then one transaction that upserts one document row and inserts one job row.
import pg from "pg";
import { inTransaction, serveJson } from "../lib/harness.mjs";

const { BASELINE_DATABASE_URL, BASELINE_PORT = "3101" } = process.env;
const pool = new pg.Pool({ connectionString: BASELINE_DATABASE_URL, max: 16 });

await pool.query(`
  CREATE TABLE IF NOT EXISTS baseline_document (
    id text PRIMARY KEY, body jsonb NOT NULL, version int NOT NULL DEFAULT 1, updated_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS baseline_job (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text NOT NULL, data jsonb NOT NULL, created_on timestamptz NOT NULL DEFAULT now());`);

async function ingest(text) {
  const { document } = JSON.parse(text);
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query(
      `INSERT INTO baseline_document AS d (id, body) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body, version = d.version + 1, updated_at = now()
       RETURNING d.version, (d.xmax = 0) AS inserted`,
      [document.id, document],
    );
    await client.query("INSERT INTO baseline_job (name, data) VALUES ('index-document', $1)", [
      { documentId: document.id, version: rows[0].version },
    ]);
    return { document_id: document.id, already_existed: !rows[0].inserted };
  });
}

serveJson(BASELINE_PORT, "baseline", ingest);
