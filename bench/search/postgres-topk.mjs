// The hand-tuned PostgreSQL top-k of issue 11 (point 3) on bench/search's own chunks: the same rows
// COPYed into one table of a dedicated database, with svc's weighted vector (title A, text B, as
// document_chunk had it) as a stored generated column and a GIN index on it, queried the way svc
// searched before the LanceDB index: chunks matching `websearch_to_tsquery`, ranked by `ts_rank_cd`,
// LIMIT 10 (bench/search-rest times the same SQL). The access rule, when the caller has one, is the
// same rule as SQL on the row's access columns. No grouping per document, no snippets: the index's
// figures include both, so the ratio flatters PostgreSQL a little.
import { spawn } from "node:child_process";
import pg from "pg";
import { databaseUrl, dropDatabase, recreateDatabase } from "../lib/harness.mjs";

export const TOPK_DATABASE = "svc_bench_pg_topk";

/** One COPY text-format field: backslash, tab and line breaks escaped; null as \N. */
function copyField(value) {
  if (value === null) return "\\N";
  return String(value).replaceAll("\\", "\\\\").replaceAll("\t", "\\t").replaceAll("\n", "\\n").replaceAll("\r", "\\r");
}

/** A PostgreSQL array literal of strings, each element quoted. */
function arrayLiteral(values) {
  return `{${values.map((value) => `"${String(value).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`;
}

/** COPYs `documents` (arrays of bench/search chunks) through psql's stdin; resolves with the row count. */
async function copyChunks(url, documents) {
  const psql = spawn("psql", [url, "-v", "ON_ERROR_STOP=1", "-q", "-c",
    "COPY bench_chunk (document_id, chunk_index, title, text, cc_pair_ids, is_public, external_user_emails, external_user_group_ids) FROM STDIN"], {
    stdio: ["pipe", "inherit", "inherit"],
  });
  const exited = new Promise((resolve, reject) => {
    psql.on("error", reject);
    psql.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`psql COPY exited with ${code}`))));
  });
  let rows = 0;
  let buffer = "";
  const flush = async () => {
    if (!psql.stdin.write(buffer)) await new Promise((resolve) => psql.stdin.once("drain", resolve));
    buffer = "";
  };
  for (const document of documents) {
    for (const chunk of document) {
      const fields = [
        chunk.documentId,
        chunk.chunkIndex,
        chunk.title,
        chunk.text,
        arrayLiteral(chunk.ccPairIds),
        chunk.isPublic,
        arrayLiteral(chunk.externalUserEmails),
        arrayLiteral(chunk.externalUserGroupIds),
      ];
      buffer += `${fields.map(copyField).join("\t")}\n`;
      rows += 1;
    }
    if (buffer.length > 1 << 20) await flush();
  }
  await flush();
  psql.stdin.end();
  await exited;
  return rows;
}

/**
 * Creates TOPK_DATABASE with the chunks of `documents` and its GIN index; returns the database's
 * client. `reuse`: the database an earlier --keep run left is used as it is, when there is one.
 */
export async function preparePostgresTopK({ documents, reuse, log }) {
  const url = databaseUrl(TOPK_DATABASE);
  if (!(reuse && (await hasChunks(url)))) {
    await recreateDatabase(TOPK_DATABASE);
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(`CREATE TABLE bench_chunk (
      document_id text NOT NULL,
      chunk_index integer NOT NULL,
      title text,
      text text NOT NULL,
      cc_pair_ids integer[] NOT NULL,
      is_public boolean,
      external_user_emails text[] NOT NULL,
      external_user_group_ids text[] NOT NULL,
      search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', text), 'B')) STORED,
      PRIMARY KEY (document_id, chunk_index))`);
    await setup.end();
    let started = performance.now();
    const rows = await copyChunks(url, documents);
    log(`PostgreSQL top-k: COPY of ${rows} chunks (vector computed on the way in): ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    started = performance.now();
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query("CREATE INDEX bench_chunk_search_vector ON bench_chunk USING gin (search_vector)");
    await client.query("VACUUM ANALYZE bench_chunk");
    log(`PostgreSQL top-k: GIN index and VACUUM ANALYZE: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await client.end();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows: [size] } = await client.query("SELECT pg_size_pretty(pg_total_relation_size('bench_chunk')) AS total, count(*)::int AS chunks FROM bench_chunk");
  log(`PostgreSQL top-k: ${size.chunks} chunks, table and indexes ${size.total}`);
  return client;
}

/** Whether TOPK_DATABASE exists with its table (an earlier --keep run's). */
async function hasChunks(url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('bench_chunk') IS NOT NULL AS present");
    return rows[0].present;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropPostgresTopK() {
  await dropDatabase(TOPK_DATABASE);
}

const TOP_K_SQL = `SELECT c.document_id, c.chunk_index, ts_rank_cd(c.search_vector, q) AS score
  FROM bench_chunk c, websearch_to_tsquery('english', $1) q
  WHERE c.search_vector @@ q`;

/** The access rule of build-search-filter.ts as SQL on the row's columns ($2–$5). */
const ACCESS_SQL = `AND ((c.is_public IS NULL AND c.cc_pair_ids && $2::int[]) OR c.is_public
    OR c.external_user_emails && $3::text[] OR c.external_user_group_ids && $4::text[] OR c.cc_pair_ids && $5::int[])`;

/** Runs one top-k query for `access` (bench/search's ADMIN or a restricted caller); resolves with the row count. */
export async function postgresTopK(client, query, access) {
  if (access.all === true) {
    return (await client.query({ name: "topk-all", text: `${TOP_K_SQL} ORDER BY score DESC LIMIT 10`, values: [query] })).rowCount;
  }
  const values = [query, access.publicPairIds, access.email === null ? [] : [access.email], access.groups, access.visiblePairIds];
  return (await client.query({ name: "topk-access", text: `${TOP_K_SQL} ${ACCESS_SQL} ORDER BY score DESC LIMIT 10`, values })).rowCount;
}
