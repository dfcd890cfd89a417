import { Prisma, type DbOrTx } from "@svc/db";
import type { Camel, DocMinimalInfoPage } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentOfPairSql } from "../auth/access-policy-sql";
import { requireViewableCcPair } from "../connectors/cc-pair-record";
import { toDocumentPage, type DocumentPageRow } from "./document-page";

/**
 * The documents linked to one pair (however they were created), by id, one page after `afterId`
 * (keyset paging on the `(cc_pair_id, document_id)` link index). A pair the principal may not see is
 * reported as missing; of a pair it sees, it lists the documents it may see (a public pair's may be
 * restricted by their external_access).
 */
export async function listCcPairDocuments({
  db,
  principal,
  ccPairId,
  limit,
  afterId,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
  limit: number;
  afterId: string | null;
}): Promise<Camel<DocMinimalInfoPage>> {
  const pair = await requireViewableCcPair(db, principal, ccPairId);
  const rows = await db.$queryRaw<DocumentPageRow[]>`
    SELECT d.id, d.semantic_identifier, d.link
    FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id
    WHERE l.cc_pair_id = ${ccPairId}
      ${afterId === null ? Prisma.empty : Prisma.sql`AND l.document_id > ${afterId}`}
      AND ${viewableDocumentOfPairSql(accessRuleOf(principal), pair, "d")}
    ORDER BY l.document_id
    LIMIT ${limit + 1}`;
  return toDocumentPage(rows, limit);
}
