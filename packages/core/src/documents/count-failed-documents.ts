import type { DbOrTx } from "@svc/db";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";
import { failedDocumentSql } from "../model/failed-document-sql";

/** How many failed documents the principal may see: the health page's number (one definition: failedDocumentSql). */
export async function countFailedDocuments({ db, principal }: { db: DbOrTx; principal: Principal }): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM document d
    WHERE ${failedDocumentSql("d")} AND ${viewableDocumentSql(accessRuleOf(principal), "d")}`;
  return row?.count ?? 0;
}
