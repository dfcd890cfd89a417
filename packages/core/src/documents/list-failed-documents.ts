import type { DbOrTx } from "@svc/db";
import type { FailedDocument } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentSql } from "../auth/access-policy-sql";
import { failedDocumentSql } from "../model/failed-document-sql";

/**
 * The documents whose indexing failed (after pg-boss's retries, or still between them), most
 * recently written first, as far as the principal may see them. Reads through the
 * `document (indexing_status)` index; failed documents are few.
 */
export async function listFailedDocuments({
  db,
  principal,
  limit,
}: {
  db: DbOrTx;
  principal: Principal;
  limit: number;
}): Promise<FailedDocument[]> {
  return db.$queryRaw<FailedDocument[]>`
    SELECT d.id AS "documentId", d.semantic_identifier AS "semanticId", d.last_error AS "lastError",
      d.index_attempts AS attempts, d.updated_at AS "updatedAt"
    FROM document d
    WHERE ${failedDocumentSql("d")} AND ${viewableDocumentSql(accessRuleOf(principal), "d")}
    ORDER BY d.updated_at DESC, d.id
    LIMIT ${limit}`;
}
