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

/**
 * Where a reader stands in the outbox: events are read in `(tx_id, id)` order, and only those of
 * transactions older than every running one (final: none of an older transaction can commit later).
 */
export interface EventPosition {
  txId: bigint;
  id: bigint;
}

/** Before every event. */
export const EVENT_ORIGIN: EventPosition = { txId: 0n, id: 0n };

/** An event row with what the access rule needs of it now: its pairs' access types and its document. */
export interface StoredEvent {
  position: EventPosition;
  type: string;
  occurredAt: Date;
  documentId: string | null;
  ccPairIds: number[];
  version: number | null;
  status: string | null;
  error: string | null;
  counts: { docs_indexed: number; docs_failed: number } | null;
  /** The event's pairs that still exist, with their access types. */
  pairs: { ccPairId: number; accessType: string }[];
  /** The event's document as it is now; null when it has none or it is gone. */
  document: { isPublic: boolean | null; externalUserEmails: string[]; externalUserGroupIds: string[]; links: { ccPairId: number; accessType: string }[] } | null;
}

interface StoredEventRow extends Omit<StoredEvent, "position"> {
  id: string;
  tx_id: string;
}

/**
 * Final events after `after`, in stream order, at most `limit`. The horizon is the statement's own
 * snapshot's xmin, so every row below it that will ever exist is visible to this very statement.
 */
export async function readFinalEvents(db: Db, after: EventPosition, limit: number): Promise<StoredEvent[]> {
  const rows = await queryStatement<StoredEventRow>(db, {
    name: "svc-read-final-events",
    text: `SELECT e.id::text AS id, e.tx_id::text AS tx_id, e.type, e.occurred_at AS "occurredAt", e.document_id AS "documentId",
        e.cc_pair_ids AS "ccPairIds", e.version, e.status, e.error, e.counts,
        COALESCE((SELECT jsonb_agg(jsonb_build_object('ccPairId', p.id, 'accessType', p.access_type) ORDER BY p.id)
          FROM connector_credential_pair p WHERE p.id = ANY(e.cc_pair_ids)), '[]'::jsonb) AS pairs,
        CASE WHEN d.id IS NULL THEN NULL ELSE jsonb_build_object(
          'isPublic', d.is_public, 'externalUserEmails', to_jsonb(d.external_user_emails), 'externalUserGroupIds', to_jsonb(d.external_user_group_ids),
          'links', COALESCE((SELECT jsonb_agg(jsonb_build_object('ccPairId', l.cc_pair_id, 'accessType', p.access_type))
            FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id WHERE l.document_id = d.id), '[]'::jsonb)) END AS document
      FROM svc_event e LEFT JOIN document d ON d.id = e.document_id
      WHERE (e.tx_id, e.id) > ($1::xid8, $2::bigint) AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY e.tx_id, e.id
      LIMIT $3`,
    values: [after.txId.toString(), after.id.toString(), limit],
  });
  return rows.map(({ id, tx_id: txId, ...event }) => ({ position: { txId: BigInt(txId), id: BigInt(id) }, ...event }));
}

/** The position of the event with this id, or null when it is not (or no longer) kept. */
export async function findEventPosition(db: Db, id: bigint): Promise<EventPosition | null> {
  const rows = await queryStatement<{ tx_id: string }>(db, {
    name: "svc-find-event-position",
    text: `SELECT tx_id::text AS tx_id FROM svc_event WHERE id = $1::bigint`,
    values: [id.toString()],
  });
  const row = rows[0];
  return row ? { txId: BigInt(row.tx_id), id } : null;
}

/** The last final event's position (the stream's tail), or the origin when there is none. */
export async function readLastFinalEventPosition(db: Db): Promise<EventPosition> {
  const rows = await queryStatement<{ id: string; tx_id: string }>(db, {
    name: "svc-read-last-final-event",
    text: `SELECT id::text AS id, tx_id::text AS tx_id FROM svc_event
      WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY tx_id DESC, id DESC LIMIT 1`,
    values: [],
  });
  const row = rows[0];
  return row ? { txId: BigInt(row.tx_id), id: BigInt(row.id) } : EVENT_ORIGIN;
}

/** Whether `a` comes after `b` in stream order. */
export function isAfterPosition(a: EventPosition, b: EventPosition): boolean {
  return a.txId > b.txId || (a.txId === b.txId && a.id > b.id);
}
