import type { DbOrTx } from "@svc/db";

/**
 * Transition PAUSED → ACTIVE. Resuming a pair that is not paused is a no-op. Returns whether the
 * status changed.
 */
// The indexing issue hooks in here: documents that waited while the pair was paused are handed back
// to the indexing queue in the same transaction.
export async function resumeCcPair({ db, ccPairId }: { db: DbOrTx; ccPairId: number }): Promise<boolean> {
  const { count } = await db.connectorCredentialPair.updateMany({
    where: { id: ccPairId, status: "PAUSED" },
    data: { status: "ACTIVE" },
  });
  return count > 0;
}
