import { Prisma, type DbOrTx } from "@svc/db";
import type { Camel, DocMinimalInfoPage } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf } from "../auth/access-policy";
import { viewableDocumentSql } from "../auth/access-policy-sql";
import { toDocumentPage, type DocumentPageRow } from "./document-page";

/**
 * The documents created through the ingestion API, by id, one page after `afterId` (keyset paging
 * on the `(from_ingestion_api, id)` index). A scoped key lists only the documents it may see
 * (access-policy.ts).
 */
export async function listIngestedDocuments({
  db,
  principal,
  limit,
  afterId,
}: {
  db: DbOrTx;
  principal: Principal;
  limit: number;
  afterId: string | null;
}): Promise<Camel<DocMinimalInfoPage>> {
  const rows = await db.$queryRaw<DocumentPageRow[]>`
    SELECT d.id, d.semantic_identifier, d.link
    FROM document d
    WHERE d.from_ingestion_api
      ${afterId === null ? Prisma.empty : Prisma.sql`AND d.id > ${afterId}`}
      AND ${viewableDocumentSql(accessRuleOf(principal), "d")}
    ORDER BY d.id
    LIMIT ${limit + 1}`;
  return toDocumentPage(rows, limit);
}
