import type { DbOrTx } from "@svc/db";
import type { IndexAttemptSummary } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { requireViewableCcPair } from "./cc-pair-record";

/** A pair's index attempts, newest first (the `(cc_pair_id, id DESC)` index); 404 for a pair the principal may not see. */
export async function listIndexAttempts({
  db,
  principal,
  ccPairId,
  limit,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
  limit: number;
}): Promise<IndexAttemptSummary[]> {
  await requireViewableCcPair(db, principal, ccPairId);
  return db.indexAttempt.findMany({
    where: { ccPairId },
    orderBy: { id: "desc" },
    take: limit,
    select: {
      id: true,
      status: true,
      docsIndexed: true,
      docsFailed: true,
      errorMessage: true,
      createdAt: true,
      startedAt: true,
      finishedAt: true,
      rebuild: true,
    },
  });
}
