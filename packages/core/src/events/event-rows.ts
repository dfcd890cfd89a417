import { queryStatement, type AnyTx, type Db } from "@svc/db";

/**
 * The one writer of `svc_event`, the outbox (docs/decisions.md "Events"). Every function writes in
 * its caller's transaction, the one that makes the change the event tells: an event exists exactly
 * when its change committed, never for one that rolled back. The indexing path calls it with named
 * statements on its plain pg connection; the others through a Prisma transaction (unprepared).
 */

/** Documents an indexing transaction marked `indexed`, at their versions; their pairs are read from the links. */
export async function recordDocumentsIndexedEvents(tx: AnyTx, documents: { ids: string[]; versions: number[] }): Promise<void> {
  if (documents.ids.length === 0) return;
  await queryStatement(tx, {
    name: "svc-record-documents-indexed",
    text: `INSERT INTO svc_event (type, document_id, cc_pair_ids, version, status)
      SELECT 'document.indexed', v.id, ${PAIRS_OF("v.id")}, v.version, 'indexed'
      FROM unnest($1::text[], $2::int[]) AS v(id, version)`,
    values: [documents.ids, documents.versions],
  });
}

/** A version's first failure (pg-boss's retries of the same version do not tell it again). */
export async function recordDocumentFailedEvent(tx: AnyTx, failure: { documentId: string; version: number; error: string }): Promise<void> {
  await queryStatement(tx, {
    name: "svc-record-document-failed",
    text: `INSERT INTO svc_event (type, document_id, cc_pair_ids, version, status, error)
      VALUES ('document.failed', $1, ${PAIRS_OF("$1")}, $2, 'failed', $3)`,
    values: [failure.documentId, failure.version, failure.error],
  });
}

/** Deleted documents, with the pairs they were linked to (read before the links went). */
export async function recordDocumentsDeletedEvents(tx: AnyTx, documents: { documentId: string; ccPairIds: number[] }[]): Promise<void> {
  if (documents.length === 0) return;
  await queryStatement(tx, {
    name: "svc-record-documents-deleted",
    text: `INSERT INTO svc_event (type, document_id, cc_pair_ids, status)
      SELECT 'document.deleted', d.document_id, d.cc_pair_ids, 'deleted'
      FROM jsonb_to_recordset($1::jsonb) AS d(document_id text, cc_pair_ids int[])`,
    values: [JSON.stringify(documents.map((document) => ({ document_id: document.documentId, cc_pair_ids: document.ccPairIds })))],
  });
}

/** An attempt row as it closed. */
export interface FinishedAttempt {
  cc_pair_id: number;
  status: string;
  docs_indexed: number;
  docs_failed: number;
  error_message: string | null;
}

/** Attempts that closed (success, completed_with_errors, failed, interrupted, canceled), with their counts. */
export async function recordAttemptsFinishedEvents(tx: AnyTx, attempts: readonly FinishedAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await queryStatement(tx, {
    name: "svc-record-attempts-finished",
    text: `INSERT INTO svc_event (type, cc_pair_ids, status, error, counts)
      SELECT 'attempt.finished', ARRAY[a.cc_pair_id], a.status, a.error_message,
        jsonb_build_object('docs_indexed', a.docs_indexed, 'docs_failed', a.docs_failed)
      FROM jsonb_to_recordset($1::jsonb) AS a(cc_pair_id int, status text, docs_indexed int, docs_failed int, error_message text)`,
    values: [JSON.stringify(attempts)],
  });
}

/** A rebuild that ended (`completed` at its swap, or `canceled`), with its generation's counts. */
export async function recordRebuildFinishedEvent(tx: AnyTx, rebuild: { generationId: number; status: "completed" | "canceled" }): Promise<void> {
  await queryStatement(tx, {
    name: "svc-record-rebuild-finished",
    text: `INSERT INTO svc_event (type, status, counts)
      SELECT 'rebuild.finished', $1, jsonb_build_object('docs_indexed', g.docs_done, 'docs_failed', g.docs_failed)
      FROM index_generation g WHERE g.id = $2`,
    values: [rebuild.status, rebuild.generationId],
  });
}

/** Deletes events older than the retention window; returns how many. */
export async function purgeExpiredEvents(db: Db, retentionHours: number): Promise<number> {
  const rows = await queryStatement<{ n: number }>(db, {
    name: "svc-purge-expired-events",
    text: `WITH gone AS (DELETE FROM svc_event WHERE occurred_at < now() - make_interval(hours => $1::int) RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
    values: [retentionHours],
  });
  return rows[0]?.n ?? 0;
}

/** The pairs a document (an SQL expression) is linked to, in id order. */
function PAIRS_OF(documentId: string): string {
  return `COALESCE((SELECT array_agg(l.cc_pair_id ORDER BY l.cc_pair_id) FROM document_by_cc_pair l WHERE l.document_id = ${documentId}), ARRAY[]::int[])`;
}
