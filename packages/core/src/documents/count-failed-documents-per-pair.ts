import type { DbOrTx } from "@svc/db";
import { accessRuleOf } from "../auth/access-policy";
import { viewablePairSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";
import { failedDocumentSql } from "../model/failed-document-sql";

/**
 * Failed documents per pair the principal may see (`svc pairs list`, the console's listing), by the one
 * definition (failedDocumentSql); a pair without any is left out. A document in two pairs counts in each.
 * Like docs_indexed, a number about the pair: it counts the pair's documents the principal may not see too.
 */
export async function countFailedDocumentsPerPair({
  db,
  principal,
  ccPairIds,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairIds: number[];
}): Promise<Map<number, number>> {
  const rows = await db.$queryRaw<{ cc_pair_id: number; failed: number }[]>`
    SELECT l.cc_pair_id, count(*)::int AS failed
    FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id JOIN connector_credential_pair p ON p.id = l.cc_pair_id
    WHERE l.cc_pair_id = ANY(${ccPairIds}::int[]) AND ${failedDocumentSql("d")} AND ${viewablePairSql(accessRuleOf(principal), "p")}
    GROUP BY l.cc_pair_id`;
  return new Map(rows.map((row) => [row.cc_pair_id, row.failed]));
}
