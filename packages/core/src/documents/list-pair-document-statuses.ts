import { Prisma, sqlAlias, type DbOrTx } from "@svc/db";
import { encodeDocumentCursor, type PairDocumentFilter, type PairDocumentStatus, type PairDocumentStatusPage } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentOfPairSql } from "../auth/access-policy-sql";
import { requireViewableCcPair } from "../connectors/cc-pair-record";
import { failedDocumentSql } from "../model/failed-document-sql";

/** Which documents each filter of the pair page takes (`failed`: the one definition). */
export function pairDocumentFilterSql(filter: PairDocumentFilter, document: string): Prisma.Sql {
  if (filter === "failed") return failedDocumentSql(document);
  const d = sqlAlias(document);
  return filter === "indexed" ? Prisma.sql`${d}.indexing_status = 'indexed'` : Prisma.sql`${d}.indexing_status IN ('queued', 'indexing')`;
}

/**
 * The console's pair page: one page of the pair's documents by id with where each one's indexing
 * stands and its last error, optionally only those of one status, so every failed document of a pair
 * can be paged through. Keyset paging on the `(cc_pair_id, document_id)` link index; an invisible pair
 * is reported as missing, and only the documents the principal may see are listed.
 */
export async function listPairDocumentStatuses({
  db,
  principal,
  ccPairId,
  status,
  limit,
  afterId,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
  status: PairDocumentFilter | null;
  limit: number;
  afterId: string | null;
}): Promise<PairDocumentStatusPage> {
  const pair = await requireViewableCcPair(db, principal, ccPairId);
  const rows = await db.$queryRaw<PairDocumentStatus[]>`
    SELECT d.id AS "documentId", d.semantic_identifier AS "semanticId", d.link,
      d.indexing_status::text AS "indexingStatus", d.last_error AS "lastError", d.index_attempts AS attempts,
      d.updated_at AS "updatedAt"
    FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id
    WHERE l.cc_pair_id = ${ccPairId}
      ${status === null ? Prisma.empty : Prisma.sql`AND ${pairDocumentFilterSql(status, "d")}`}
      ${afterId === null ? Prisma.empty : Prisma.sql`AND l.document_id > ${afterId}`}
      AND ${viewableDocumentOfPairSql(accessRuleOf(principal), pair, "d")}
    ORDER BY l.document_id
    LIMIT ${limit + 1}`;
  const documents = rows.slice(0, limit);
  const last = documents.at(-1);
  return { documents, nextCursor: rows.length > limit && last ? encodeDocumentCursor(last.documentId) : null };
}
