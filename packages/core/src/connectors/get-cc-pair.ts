import type { DbOrTx } from "@svc/db";
import type { CcPair } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { readCcPair, requireViewableCcPair } from "./cc-pair-record";

/**
 * One pair, whatever its status (a pair being deleted shows as DELETING until its deletion job
 * has run). A pair the principal may not see is reported as missing.
 */
export async function getCcPair({
  db,
  principal,
  ccPairId,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
}): Promise<CcPair> {
  await requireViewableCcPair(db, principal, ccPairId);
  return readCcPair(db, ccPairId);
}
