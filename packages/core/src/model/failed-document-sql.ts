import { Prisma, sqlAlias } from "@svc/db";

/**
 * The one definition of a failed document (docs/decisions.md, "Failed"), on the document row under
 * `document`: the last try at indexing its current version failed, and nothing has indexed it since.
 * It stays so through pg-boss's retries and the console's retry (a retry is a request, not a fix)
 * until a try succeeds, a new version is written, or the document is deleted. Every count and list
 * of failed documents (health, a pair's page, `svc pairs list`) uses this condition.
 */
export function failedDocumentSql(document: string): Prisma.Sql {
  return Prisma.sql`${sqlAlias(document)}.indexing_status = 'failed'`;
}
