import { Prisma, querySql, withCancelOnAbort, type Db } from "@svc/db";
import { SEARCH_CHUNKS_PER_DOCUMENT, type Camel, type DocumentSource, type SearchFilters, type SearchMatch, type SearchRequest, type SearchResponse } from "@svc/schema";
import { searchDocuments as searchIndex, SearchIndexError, type GenerationTable, type SearchHit, type ShownChunk } from "@svc/search-index";
import { searchAccessRule, searchIndexAccess, type AccessRule } from "../auth/access-policy";
import { viewableDocumentSql, viewablePairSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { searchedText } from "../indexing/build-chunks";
import { noteGenerationSearched } from "../search-index/note-generation-searched";
import type { SearchIndexTables } from "../search-index/search-index-tables";

/** What a search answers when it runs past its time (decisions: "Limits and overload"). */
const TOO_LONG = "Search took too long; narrow the query";

/**
 * The share of the index a caller must see (by the indexed documents of the public pairs and of the
 * key's own, a lower bound: documents public by their own flag, email or group are not counted) for
 * the first ranking round to leave the access rule to admission. At half, the round's ~30 documents
 * hold the page's 10 visible ones nearly always; below it the round would more often be wasted.
 */
const VISIBLE_SHARE_FOR_ADMISSION = 0.5;

/** The request's filters as conditions on `document d`; all must hold. */
function filterConditions(filters: Camel<SearchFilters> | null): Prisma.Sql[] {
  if (filters === null) return [];
  const conditions: Prisma.Sql[] = [];
  if (filters.sources !== null) conditions.push(Prisma.sql`d.source::text = ANY(${filters.sources}::text[])`);
  if (filters.ccPairIds !== null) {
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM document_by_cc_pair l
      WHERE l.document_id = d.id AND l.cc_pair_id = ANY(${filters.ccPairIds}::int[]))`);
  }
  if (filters.tags !== null) {
    // A metadata value is a string or a list of strings: the tag matches either shape.
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(filters.tags)}::jsonb) AS t(key text, value text)
      WHERE d.metadata @> jsonb_build_object(t.key, t.value)
         OR d.metadata @> jsonb_build_object(t.key, jsonb_build_array(t.value)))`);
  }
  if (filters.docUpdatedAfter !== null) conditions.push(Prisma.sql`d.doc_updated_at >= ${filters.docUpdatedAfter}`);
  if (filters.docUpdatedBefore !== null) conditions.push(Prisma.sql`d.doc_updated_at <= ${filters.docUpdatedBefore}`);
  return conditions;
}

/**
 * Full-text search over the current index generation's table in the search index (BM25, exact
 * top-k; @svc/search-index): the caller's access rule (access-policy.ts, with the pairs that are
 * public now) and the filters are a where-clause the index applies before its top-k cut (for a caller
 * who sees at least half the index, the first ranking round leaves the rule to admission). PostgreSQL
 * stays the truth: each candidate document is admitted by one query over the page's ids (it still
 * exists, has an indexed version, the caller may find it and it passes the filters), so a row the
 * index still holds for a document deleted, re-scoped, or not yet committed as indexed is never
 * shown, and the index fetches further instead (a page is never shortened while more matches exist).
 *
 * Runs under `timeoutMs` (SEARCH_TIMEOUT, 503) and stops at its next step when `signal` aborts (the
 * client went away): a LanceDB query already running finishes (it cannot be interrupted from
 * JavaScript; its own timeout bounds it), a PostgreSQL statement is cancelled.
 */
export async function searchDocuments({
  db,
  index,
  principal,
  request,
  timeoutMs = 5_000,
  signal,
}: {
  db: Db;
  index: SearchIndexTables;
  principal: Principal;
  /** `match` defaults to `any`, as the REST request's does. */
  request: Omit<Camel<SearchRequest>, "match"> & { match?: SearchMatch };
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<Camel<SearchResponse>> {
  const deadline = Date.now() + timeoutMs;
  const rule = searchAccessRule(principal, request.principal);
  try {
    // Raw pg on search's two statements: Prisma's client-side work per raw query (~0.5 ms, more under
    // load) was a third of their cost. This one reads two small tables and needs no cancel on abort.
    // One pass over the pairs; the sums as float8, which pg returns as numbers (a bigint comes back a
    // string). Which pairs the caller sees is the access policy's own condition (viewablePairSql); the
    // statement is named per shape of that condition, so each shape is prepared once per connection.
    const stateSql = Prisma.sql`SELECT (SELECT id FROM index_generation WHERE status = 'current') AS generation_id,
        COALESCE(array_agg(p.id) FILTER (WHERE p.access_type = 'public'), '{}') AS public_pair_ids,
        COALESCE(SUM(p.docs_indexed), 0)::float8 AS docs_indexed,
        COALESCE(SUM(p.docs_indexed) FILTER (WHERE ${viewablePairSql(rule, "p")}), 0)::float8 AS docs_in_visible_pairs
        FROM connector_credential_pair p`;
    const [state] = await querySql<{ generation_id: number | null; public_pair_ids: number[]; docs_indexed: number; docs_in_visible_pairs: number }>(db, {
      name: `search-state-${rule.allPairs ? "all" : "pairs"}`,
      text: stateSql.text,
      values: stateSql.values,
    });
    if (state?.generation_id == null) return { results: [] };
    const generationId = state.generation_id;
    noteGenerationSearched(db, generationId);
    // Admission applies the access rule anyway; leaving it out of the index's first ranking round pays
    // when the caller sees much of the index (see admitAppliesAccess). The pairs' counts estimate it.
    const seesMuch = state.docs_in_visible_pairs >= VISIBLE_SHARE_FOR_ADMISSION * state.docs_indexed;
    const search = async (generation: GenerationTable) =>
      searchIndex({
        generation,
        query: request.query,
        match: request.match,
        limit: request.limit,
        access: searchIndexAccess(rule, state.public_pair_ids),
        filter: request.filters,
        admit: (documentIds) => admitDocuments(db, rule, request.filters, documentIds, signal),
        admitAppliesAccess: seesMuch,
        readShown: (chunks) => readShownChunks(db, generationId, chunks, signal),
        deadline,
        signal: signal ?? null,
      });
    let hits: SearchHit[];
    try {
      const generation = await index.readable(generationId);
      // The table is missing while the index is refilled from PostgreSQL (a lost directory): nothing to find yet.
      if (generation === null) return { results: [] };
      hits = await search(generation);
    } catch (error) {
      if (error instanceof SearchIndexError || error instanceof AppError) throw error;
      // A table handle kept open may have been dropped underneath (a refill): open it once more.
      index.forget(generationId);
      const generation = await index.readable(generationId);
      if (generation === null) return { results: [] };
      hits = await search(generation);
    }
    return { results: hits.map(toSearchResult) };
  } catch (error) {
    if (error instanceof SearchIndexError && (error.code === "TIMEOUT" || error.code === "ABORTED")) {
      throw new AppError("SEARCH_TIMEOUT", TOO_LONG);
    }
    throw error;
  }
}

/** The candidates PostgreSQL confirms: existing, indexed, visible to the caller, passing the filters. */
async function admitDocuments(
  db: Db,
  rule: AccessRule,
  filters: Camel<SearchFilters> | null,
  documentIds: string[],
  signal: AbortSignal | undefined,
): Promise<Set<string>> {
  const conditions = [viewableDocumentSql(rule, "d"), ...filterConditions(filters)];
  const rows = await withCancelOnAbort(db, signal, (tag) => {
    const query = Prisma.sql`${tag}
      SELECT d.id FROM document d
      WHERE d.id = ANY(${documentIds}::text[]) AND d.indexed_version IS NOT NULL AND ${Prisma.join(conditions, " AND ")}`;
    return querySql<{ id: string }>(db, { text: query.text, values: query.values });
  });
  return new Set(rows.map((row) => row.id));
}

/**
 * The shown chunks as PostgreSQL holds them in the generation the index was read in: the chunk's
 * parts, joined as the worker joined them for the index (searchedText), and the document's fields, read
 * by key in ~1 ms where the index's own lookup costs ~10 ms at a million chunks. The worker commits a
 * document's chunks here right after its index rows, so both hold the same text; a chunk missing here
 * (the moment between the two commits) is read from the index.
 */
async function readShownChunks(
  db: Db,
  generationId: number,
  chunks: { documentId: string; chunkIndex: number }[],
  signal: AbortSignal | undefined,
): Promise<ShownChunk[]> {
  const rows = await withCancelOnAbort(db, signal, (tag) => {
    const query = Prisma.sql`${tag}
      SELECT c.document_id, c.chunk_index, c.title_prefix, c.content, c.metadata_suffix, c.link, c.image_file_id, d.semantic_identifier, d.title, d.source::text AS source, d.link AS document_link, d.doc_updated_at
      FROM unnest(${chunks.map((chunk) => chunk.documentId)}::text[], ${chunks.map((chunk) => chunk.chunkIndex)}::int[]) AS k(document_id, chunk_index)
      JOIN document_chunk c ON c.document_id = k.document_id AND c.generation_id = ${generationId} AND c.chunk_index = k.chunk_index
      JOIN document d ON d.id = c.document_id`;
    return querySql<{
      document_id: string;
      chunk_index: number;
      title_prefix: string;
      content: string;
      metadata_suffix: string;
      link: string | null;
      image_file_id: string | null;
      semantic_identifier: string;
      title: string | null;
      source: string;
      document_link: string | null;
      doc_updated_at: Date;
    }>(db, { text: query.text, values: query.values });
  });
  return rows.map((row) => ({
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: searchedText({ titlePrefix: row.title_prefix, content: row.content, metadataSuffix: row.metadata_suffix }),
    content: contentRange(row.title_prefix, row.content),
    semanticIdentifier: row.semantic_identifier,
    title: row.title,
    source: row.source,
    documentLink: row.document_link,
    link: row.link,
    imageFileId: row.image_file_id,
    docUpdatedAt: row.doc_updated_at,
  }));
}

/** Where a chunk's content lies in its searched text (searchedText joins the non-empty parts with one newline). */
function contentRange(titlePrefix: string, content: string): { start: number; end: number } {
  const start = titlePrefix === "" ? 0 : titlePrefix.length + 1;
  return { start, end: start + content.length };
}

function toSearchResult(hit: SearchHit): Camel<SearchResponse>["results"][number] {
  return {
    documentId: hit.documentId,
    semanticIdentifier: hit.semanticIdentifier,
    title: hit.title,
    source: hit.source as DocumentSource,
    link: hit.link,
    score: hit.score,
    docUpdatedAt: hit.docUpdatedAt.toISOString(),
    chunks: hit.chunks.slice(0, SEARCH_CHUNKS_PER_DOCUMENT).map((chunk) => ({
      chunkIndex: chunk.chunkIndex,
      snippet: chunk.snippet,
      link: chunk.link,
      imageFileId: chunk.imageFileId,
      score: chunk.score,
    })),
  };
}
