import { Prisma, type DbOrTx } from "@svc/db";
import {
  SEARCH_CHUNKS_PER_DOCUMENT,
  type DocumentSource,
  type SearchFilters,
  type SearchRequest,
  type SearchResponse,
  type SearchResult,
} from "@svc/schema";
import { searchAccessRule } from "../auth/access-policy";
import { findableDocumentSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";

/** The request's filters as conditions on `document d`; all must hold. */
function filterConditions(filters: SearchFilters | null): Prisma.Sql[] {
  if (filters === null) return [];
  const conditions: Prisma.Sql[] = [];
  if (filters.sources !== null) conditions.push(Prisma.sql`d.source::text = ANY(${filters.sources}::text[])`);
  if (filters.cc_pair_ids !== null) {
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM document_by_cc_pair l
      WHERE l.document_id = d.id AND l.cc_pair_id = ANY(${filters.cc_pair_ids}::int[]))`);
  }
  if (filters.tags !== null) {
    // A metadata value is a string or a list of strings: the tag matches either shape.
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(filters.tags)}::jsonb) AS t(key text, value text)
      WHERE d.metadata @> jsonb_build_object(t.key, t.value)
         OR d.metadata @> jsonb_build_object(t.key, jsonb_build_array(t.value)))`);
  }
  if (filters.doc_updated_after !== null) conditions.push(Prisma.sql`d.doc_updated_at >= ${filters.doc_updated_after}`);
  if (filters.doc_updated_before !== null) conditions.push(Prisma.sql`d.doc_updated_at <= ${filters.doc_updated_before}`);
  return conditions;
}

interface SearchRow {
  document_id: string;
  semantic_identifier: string;
  title: string | null;
  source: DocumentSource;
  link: string | null;
  doc_updated_at: Date;
  document_score: number;
  chunk_index: number;
  chunk_score: number;
  chunk_link: string | null;
  image_file_id: string | null;
  snippet: string;
}

/**
 * Full-text search over the indexed chunks of the current index generation, in one statement: chunks
 * matching `websearch_to_tsquery(config, query)` (the generation's text-search configuration) are
 * scored with `ts_rank_cd` on their weighted vector (title A, body B, metadata C), documents the
 * caller may find (access-policy.ts: canFindDocument) and that pass the filters are ranked by their best chunk, and
 * the best `limit` come back with their best three chunks.
 * Only indexed documents have chunks, so only they can be found. Snippets are HTML: the chunk text is
 * escaped before `ts_headline` wraps the matches in `<mark>`.
 */
export async function searchDocuments({
  db,
  principal,
  request,
}: {
  db: DbOrTx;
  principal: Principal;
  request: SearchRequest;
}): Promise<SearchResponse> {
  const conditions = [findableDocumentSql(searchAccessRule(principal, request.principal), "d"), ...filterConditions(request.filters)];
  const rows = await db.$queryRaw<SearchRow[]>`
    WITH q AS (
      SELECT g.id AS generation_id, g.text_search_config::regconfig AS config,
        websearch_to_tsquery(g.text_search_config::regconfig, ${request.query}) AS query
      FROM index_generation g WHERE g.status = 'current'
    ),
    matches AS (
      SELECT c.document_id, c.chunk_index, ts_rank_cd(c.search_vector, q.query) AS score
      FROM document_chunk c, q WHERE c.search_vector @@ q.query AND c.generation_id = q.generation_id
    ),
    ranked AS (
      SELECT m.document_id, max(m.score) AS score
      FROM matches m JOIN document d ON d.id = m.document_id
      WHERE ${Prisma.join(conditions, " AND ")}
      GROUP BY m.document_id
      ORDER BY score DESC, m.document_id
      LIMIT ${request.limit}
    ),
    best_chunks AS (
      SELECT m.document_id, m.chunk_index, m.score,
        row_number() OVER (PARTITION BY m.document_id ORDER BY m.score DESC, m.chunk_index) AS place
      FROM matches m JOIN ranked r ON r.document_id = m.document_id
    )
    SELECT d.id AS document_id, d.semantic_identifier, d.title, d.source::text AS source, d.link, d.doc_updated_at,
      r.score AS document_score, b.chunk_index, b.score AS chunk_score, c.link AS chunk_link, c.image_file_id,
      ts_headline(q.config, replace(replace(replace(c.content, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), q.query,
        'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, MaxFragments=2') AS snippet
    FROM ranked r
    JOIN document d ON d.id = r.document_id
    JOIN best_chunks b ON b.document_id = r.document_id AND b.place <= ${SEARCH_CHUNKS_PER_DOCUMENT}
    CROSS JOIN q
    JOIN document_chunk c
      ON c.document_id = b.document_id AND c.generation_id = q.generation_id AND c.chunk_index = b.chunk_index
    ORDER BY r.score DESC, r.document_id, b.place`;

  const results: SearchResult[] = [];
  for (const row of rows) {
    let result = results.at(-1);
    if (result?.document_id !== row.document_id) {
      result = {
        document_id: row.document_id,
        semantic_identifier: row.semantic_identifier,
        title: row.title,
        source: row.source,
        link: row.link,
        score: row.document_score,
        doc_updated_at: row.doc_updated_at.toISOString(),
        chunks: [],
      };
      results.push(result);
    }
    result.chunks.push({
      chunk_index: row.chunk_index,
      snippet: row.snippet,
      link: row.chunk_link,
      image_file_id: row.image_file_id,
      score: row.chunk_score,
    });
  }
  return { results };
}
