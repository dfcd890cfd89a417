import { Prisma, sqlAlias, withCancelOnAbort, type DbOrTx } from "@svc/db";
import {
  encodeDocumentCursor,
  type PairDocumentFilter,
  type PairDocumentSort,
  type PairDocumentSortColumn,
  type PairDocumentStatus,
  type PairDocumentStatusPage,
} from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentOfPairSql } from "../auth/access-policy-sql";
import { requireViewableCcPair } from "../connectors/cc-pair-record";
import { AppError } from "../errors/app-error";
import { failedDocumentSql } from "../model/failed-document-sql";

/** Which documents each filter of the pair page takes (`failed`: the one definition). */
export function pairDocumentFilterSql(filter: PairDocumentFilter, document: string): Prisma.Sql {
  if (filter === "failed") return failedDocumentSql(document);
  const d = sqlAlias(document);
  return filter === "indexed" ? Prisma.sql`${d}.indexing_status = 'indexed'` : Prisma.sql`${d}.indexing_status IN ('queued', 'indexing')`;
}

/**
 * Each sortable column (over `document` as `d`), and the type its key is read back as from a cursor:
 * the key travels as PostgreSQL's own text of it, so a timestamp keeps its microseconds.
 */
const SORT_KEYS: Record<PairDocumentSortColumn, { sql: Prisma.Sql; cast: (key: string) => Prisma.Sql }> = {
  id: { sql: Prisma.sql`d.id`, cast: (key) => Prisma.sql`${key}` },
  // Case aside, as people read names ("anchor" before "Beacon" in any collation).
  name: { sql: Prisma.sql`lower(d.semantic_identifier)`, cast: (key) => Prisma.sql`${key}` },
  status: { sql: Prisma.sql`d.indexing_status::text`, cast: (key) => Prisma.sql`${key}` },
  tries: { sql: Prisma.sql`d.index_attempts`, cast: (key) => Prisma.sql`${key}::int` },
  updated: { sql: Prisma.sql`d.updated_at`, cast: (key) => Prisma.sql`${key}::timestamptz` },
};

/**
 * The console's pair page: one page of the pair's documents with where each one's indexing stands
 * and its last error, optionally only those of one status, or whose name or id contains `query`
 * (case aside), in the order `sort` asks (by id when none), so every failed document of a pair can be
 * paged through. Keyset paging: on the `(cc_pair_id, document_id)` link index by id; in another order
 * the cursor holds the last row's key and id, and that order sorts the pair's matching documents
 * (bounded by the web's statement timeout, cancelled when the caller goes away). An invisible pair is
 * reported as missing, and only the documents the principal may see are listed.
 */
export async function listPairDocumentStatuses({
  db,
  principal,
  ccPairId,
  status,
  query = null,
  sort = null,
  limit,
  afterId,
  signal,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
  status: PairDocumentFilter | null;
  query?: string | null;
  sort?: PairDocumentSort | null;
  limit: number;
  /** The cursor's content: the last id (no sort), or the JSON `[key, id]` of the last row (a sort). */
  afterId: string | null;
  signal?: AbortSignal;
}): Promise<PairDocumentStatusPage> {
  const pair = await requireViewableCcPair(db, principal, ccPairId);
  const key = sort ? SORT_KEYS[sort.column] : null;
  const descending = sort?.direction === "desc";
  let after = Prisma.empty;
  if (afterId !== null) {
    if (!key) after = Prisma.sql`AND l.document_id > ${afterId}`;
    else {
      const [lastKey, lastId] = parseSortedCursor(afterId);
      after = descending
        ? Prisma.sql`AND (${key.sql}, l.document_id) < (${key.cast(lastKey)}, ${lastId})`
        : Prisma.sql`AND (${key.sql}, l.document_id) > (${key.cast(lastKey)}, ${lastId})`;
    }
  }
  const order = key
    ? descending
      ? Prisma.sql`${key.sql} DESC, l.document_id DESC`
      : Prisma.sql`${key.sql}, l.document_id`
    : Prisma.sql`l.document_id`;
  // strpos over lower(): the query is text, never a LIKE pattern.
  const matching =
    query === null
      ? Prisma.empty
      : Prisma.sql`AND (strpos(lower(d.semantic_identifier), lower(${query})) > 0 OR strpos(lower(d.id), lower(${query})) > 0)`;
  const rows = await withCancelOnAbort(db, signal, (tag) => db.$queryRaw<(PairDocumentStatus & { sortKey: string | null })[]>`${tag}
    SELECT d.id AS "documentId", d.semantic_identifier AS "semanticId", d.link,
      d.indexing_status::text AS "indexingStatus", d.last_error AS "lastError", d.index_attempts AS attempts,
      d.updated_at AS "updatedAt", ${key ? Prisma.sql`(${key.sql})::text` : Prisma.sql`NULL`} AS "sortKey"
    FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id
    WHERE l.cc_pair_id = ${ccPairId}
      ${status === null ? Prisma.empty : Prisma.sql`AND ${pairDocumentFilterSql(status, "d")}`}
      ${matching}
      ${after}
      AND ${viewableDocumentOfPairSql(accessRuleOf(principal), pair, "d")}
    ORDER BY ${order}
    LIMIT ${limit + 1}`);
  const documents = rows.slice(0, limit).map(({ sortKey: _sortKey, ...document }) => document);
  const last = rows.at(limit - 1);
  const nextCursor =
    rows.length > limit && last ? encodeDocumentCursor(key ? JSON.stringify([last.sortKey, last.documentId]) : last.documentId) : null;
  return { documents, nextCursor };
}

/** A sorted listing's cursor: `[key, id]`, two strings; anything else was not made by this listing. */
function parseSortedCursor(cursor: string): [string, string] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    parsed = null;
  }
  if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === "string")) return parsed as [string, string];
  throw new AppError("BAD_REQUEST", "cursor is not a next_cursor of this listing in this order");
}
