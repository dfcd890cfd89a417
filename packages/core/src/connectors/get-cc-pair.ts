import type { DbOrTx } from "@svc/db";
import type { CcPair } from "@svc/schema";
import { canViewPair, type Principal } from "../auth/principal";
import { ccPairNotFound, isStoredId, readCcPair } from "./cc-pair-record";

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
  const visibility = isStoredId(ccPairId)
    ? await db.connectorCredentialPair.findUnique({ where: { id: ccPairId }, select: { id: true, accessType: true } })
    : null;
  if (!visibility || !canViewPair(principal, visibility)) throw ccPairNotFound(ccPairId);
  return readCcPair(db, ccPairId);
}
