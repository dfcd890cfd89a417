import { Prisma, type DbOrTx } from "@svc/db";
import type { DeadLetterList, DocumentIndexingStatus } from "@svc/schema";
import { accessRuleOf, type AccessRule } from "../auth/access-policy";
import { viewableDocumentSql, viewablePairSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";
import { DEAD_LETTER_QUEUE, deleteCcPairJob, indexDocumentJob } from "../jobs/catalog";
import { failedDocumentSql } from "../model/failed-document-sql";

/**
 * The jobs waiting in the dead-letter queue (pg-boss moved them there after their last retry
 * failed; ARCHITECTURE.md, "Jobs"), newest first, as far as the principal may see them: an indexing
 * job as its document (the one document rule, so a document deleted since is an unscoped admin's
 * only), a pair deletion as its pair, anything else (rebuilds, purges reach beyond any pair) by an
 * admin without scope only. Read from pg-boss's job table, in the same database: the waiting jobs
 * are the ones the health page's "Dead letter" tile counts (getQueueDepth), until a retry moves them
 * or pg-boss's retention (14 days) drops them.
 */
export async function listDeadLetterJobs({ db, principal, limit }: { db: DbOrTx; principal: Principal; limit: number }): Promise<DeadLetterList> {
  if (limit < 1) throw new RangeError("limit must be at least 1");
  const rule = accessRuleOf(principal);
  const rows = await db.$queryRaw<DeadLetterRow[]>`
    SELECT j.id::text AS "jobId", j.source_name AS queue, j.data, j.source_output->>'message' AS error,
      coalesce(j.source_retry_count, 0) + 1 AS runs, j.created_on AS "failedAt",
      d.semantic_identifier AS "semanticId", d.indexing_status::text AS "documentStatus",
      CASE WHEN ${failedDocumentSql("d")} THEN d.last_error END AS "documentError",
      CASE WHEN d.id IS NULL THEN ARRAY[]::int[] ELSE ARRAY(
        SELECT l.cc_pair_id FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
        WHERE l.document_id = d.id AND ${viewablePairSql(rule, "p")} ORDER BY l.cc_pair_id) END AS "documentPairIds",
      count(*) OVER ()::int AS total
    FROM pgboss.job j
    LEFT JOIN document d ON j.source_name = ${indexDocumentJob.name} AND d.id = j.data->>'documentId'
    WHERE j.name = ${DEAD_LETTER_QUEUE} AND j.state < 'active' AND ${visibleJobSql(rule)}
    ORDER BY j.created_on DESC, j.id
    LIMIT ${limit}`;
  return {
    // Each row carries the count of them all (limit is at least 1); no row: none.
    total: rows[0]?.total ?? 0,
    jobs: rows.map((row) => {
      const data = row.data ?? {};
      const indexing = row.queue === indexDocumentJob.name;
      const pairId = row.queue === deleteCcPairJob.name && typeof data.ccPairId === "number" ? data.ccPairId : null;
      return {
        jobId: row.jobId,
        queue: row.queue ?? "unknown",
        documentId: indexing && typeof data.documentId === "string" ? data.documentId : null,
        semanticId: row.semanticId,
        documentStatus: row.documentStatus,
        ccPairIds: pairId === null ? row.documentPairIds : [pairId],
        generationId: typeof data.generationId === "number" ? data.generationId : null,
        error: row.error,
        documentError: row.documentError,
        runs: row.runs,
        failedAt: row.failedAt,
      };
    }),
  };
}

interface DeadLetterRow {
  jobId: string;
  queue: string | null;
  data: { documentId?: unknown; ccPairId?: unknown; generationId?: unknown } | null;
  error: string | null;
  runs: number;
  failedAt: Date;
  semanticId: string | null;
  documentStatus: DocumentIndexingStatus | null;
  documentError: string | null;
  documentPairIds: number[];
  total: number;
}

/** Which dead-letter rows (`j`, its document joined as `d`) the rule lets the caller see. */
function visibleJobSql(rule: AccessRule): Prisma.Sql {
  if (rule.allPairs) return Prisma.sql`TRUE`;
  return Prisma.sql`(
    (j.source_name = ${indexDocumentJob.name} AND d.id IS NOT NULL AND ${viewableDocumentSql(rule, "d")})
    OR (j.source_name = ${deleteCcPairJob.name} AND EXISTS (
      SELECT 1 FROM connector_credential_pair p WHERE p.id::text = j.data->>'ccPairId' AND ${viewablePairSql(rule, "p")})))`;
}
