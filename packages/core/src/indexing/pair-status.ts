import { Prisma, executeSql, type AnyTx } from "@svc/db";
import { servingAttemptSql } from "../search-index/index-generations";

/**
 * The pair-status transitions that indexing drives (pausing, resuming and deleting have their own in
 * ../connectors). Each is a no-op from any other status, so calling one twice is safe. Callers hold
 * the pair row lock (lockDocumentPairs).
 */

/** The last attempts that all have to fail for a pair to be in a repeated error state. */
export const REPEATED_ERROR_ATTEMPTS = 5;

/** SCHEDULED → INITIAL_INDEXING: the pair's first attempt has started. */
export async function markPairIndexingStarted(tx: AnyTx, ccPairId: number): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      UPDATE connector_credential_pair SET status = 'INITIAL_INDEXING', updated_at = now()
      WHERE id = ${ccPairId} AND status = 'SCHEDULED'`,
  );
}

/** SCHEDULED / INITIAL_INDEXING → ACTIVE: an attempt of the pair has indexed a document. */
export async function markPairActive(tx: AnyTx, ccPairId: number): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      UPDATE connector_credential_pair SET status = 'ACTIVE', updated_at = now()
      WHERE id = ${ccPairId} AND status IN ('SCHEDULED', 'INITIAL_INDEXING')`,
  );
}

/**
 * Sets `in_repeated_error_state` when the last five attempts all failed and clears it otherwise (a
 * success, or a completion with errors), over the attempts that count (not a rebuild's still being
 * built). Called when an attempt closes (and for many pairs by a rebuild's swap); the rule is the one the
 * listing computes (list-indexing-status.ts), so the column and the listing agree once no attempt runs.
 */
export async function updateRepeatedErrorState(tx: AnyTx, ccPairIds: number | number[]): Promise<void> {
  const ids = typeof ccPairIds === "number" ? [ccPairIds] : ccPairIds;
  // Only rows whose value changes are written: a swap recomputes thousands of pairs, most unchanged.
  await executeSql(
    tx,
    Prisma.sql`
    WITH computed AS (
      SELECT q.id, (
        SELECT count(*) = ${REPEATED_ERROR_ATTEMPTS} AND COALESCE(bool_and(last_attempts.status = 'failed'), false)
        FROM (
          SELECT ia.status FROM index_attempt ia WHERE ia.cc_pair_id = q.id AND ${servingAttemptSql("ia")}
          ORDER BY ia.id DESC LIMIT ${REPEATED_ERROR_ATTEMPTS}
        ) last_attempts
      ) AS repeated
      FROM unnest(${ids}::int[]) AS q(id)
    )
    UPDATE connector_credential_pair p SET in_repeated_error_state = computed.repeated
    FROM computed WHERE p.id = computed.id AND p.in_repeated_error_state IS DISTINCT FROM computed.repeated`,
  );
}
