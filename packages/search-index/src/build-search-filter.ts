import { encodeTag, type ChunkTag } from "./chunk-row";
import { sqlIn, sqlInt32, sqlListHasAny, sqlString, sqlTimestamp } from "./sql-literal";

/**
 * Who is searching, as plain data the caller resolves (from PostgreSQL, at query time, so a pair's
 * access type change shows at once): everything, or a user with the pairs that decide for them.
 */
export type SearchAccess =
  | { all: true }
  | {
      all?: false;
      /** Pairs whose access type is `public` now. */
      publicPairIds: number[];
      /** Pairs the key may see whatever their documents say (a scoped curator key's own pairs). */
      visiblePairIds: number[];
      email: string | null;
      groups: string[];
    };

/** Narrowing filters; each given one must hold (within one, any item matching is enough). */
export interface SearchFilter {
  sources?: string[] | null;
  ccPairIds?: number[] | null;
  tags?: ChunkTag[] | null;
  /** Inclusive bounds on doc_updated_at. */
  docUpdatedAfter?: Date | null;
  docUpdatedBefore?: Date | null;
}

/**
 * The access rule as a where-clause (decisions, `external_access`). A document is visible when
 *   (a) it has no external_access (is_public IS NULL) and belongs to a public pair, or
 *   (b) is_public is true, or
 *   (c) the user's email is in external_user_emails, or
 *   (d) one of the user's groups is in external_user_group_ids, or
 *   (e) it belongs to a pair the key may see.
 * Null for `{ all: true }` (no condition).
 */
export function buildAccessFilter(access: SearchAccess): string | null {
  if (access.all === true) return null;
  const conditions = [
    `(is_public IS NULL AND ${sqlListHasAny("cc_pair_ids", access.publicPairIds.map(sqlInt32))})`,
    "is_public = 1",
  ];
  if (access.email !== null) conditions.push(`array_has(external_user_emails, ${sqlString(access.email)})`);
  if (access.groups.length > 0) {
    conditions.push(sqlListHasAny("external_user_group_ids", access.groups.map(sqlString)));
  }
  if (access.visiblePairIds.length > 0) {
    conditions.push(sqlListHasAny("cc_pair_ids", access.visiblePairIds.map(sqlInt32)));
  }
  return `(${conditions.join(" OR ")})`;
}

/** The filters as where-clause conditions, all of which must hold. */
export function buildFilterConditions(filter: SearchFilter | null): string[] {
  if (filter === null) return [];
  const conditions: string[] = [];
  if (filter.sources != null) conditions.push(sqlIn("source", filter.sources.map(sqlString)));
  if (filter.ccPairIds != null) conditions.push(sqlListHasAny("cc_pair_ids", filter.ccPairIds.map(sqlInt32)));
  if (filter.tags != null) conditions.push(sqlListHasAny("tags", filter.tags.map((tag) => sqlString(encodeTag(tag)))));
  if (filter.docUpdatedAfter != null) conditions.push(`doc_updated_at >= ${sqlTimestamp(filter.docUpdatedAfter)}`);
  if (filter.docUpdatedBefore != null) conditions.push(`doc_updated_at <= ${sqlTimestamp(filter.docUpdatedBefore)}`);
  return conditions;
}

/** Access and filters as one where-clause, or null when nothing narrows the search. */
export function buildSearchFilter(access: SearchAccess, filter: SearchFilter | null): string | null {
  const conditions = [buildAccessFilter(access), ...buildFilterConditions(filter)].filter((c) => c !== null);
  return conditions.length === 0 ? null : conditions.join(" AND ");
}
