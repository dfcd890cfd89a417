import type { Camel, CcPair } from "@svc/schema";
import { readCcPair, requireViewableCcPair, type PairRequest } from "./cc-pair-record";

/**
 * One pair, whatever its status (a pair being deleted shows as DELETING until its deletion job
 * has run). A pair the principal may not see is reported as missing.
 */
export async function getCcPair({ db, principal, ccPairId }: PairRequest): Promise<Camel<CcPair>> {
  await requireViewableCcPair(db, principal, ccPairId);
  return readCcPair(db, ccPairId);
}
