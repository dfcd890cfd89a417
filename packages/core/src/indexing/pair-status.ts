import { Prisma, executeSql, type AnyTx } from "@svc/db";

/**
 * The pair-status transitions that indexing drives (pausing, resuming and deleting have their own in
 * ../connectors). Each is a no-op from any other status, so calling one twice is safe. Callers hold
 * the pair row lock (lockDocumentPairs).
 */

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
