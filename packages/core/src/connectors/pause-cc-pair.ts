import type { ConnectorCredentialPairStatus, DbOrTx } from "@svc/db";

/** The statuses a pair can be paused from: anything but DELETING (final) and PAUSED (already). */
const PAUSABLE: ConnectorCredentialPairStatus[] = ["SCHEDULED", "INITIAL_INDEXING", "ACTIVE", "INVALID"];

/**
 * Transition to PAUSED: the pair still accepts documents, their indexing waits until it is resumed.
 * Returns whether the status changed (pausing a paused pair is a no-op).
 */
export async function pauseCcPair({ db, ccPairId }: { db: DbOrTx; ccPairId: number }): Promise<boolean> {
  const { count } = await db.connectorCredentialPair.updateMany({
    where: { id: ccPairId, status: { in: PAUSABLE } },
    data: { status: "PAUSED" },
  });
  return count > 0;
}
