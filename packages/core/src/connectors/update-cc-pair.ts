import type { Camel, CcPair, SettableCcPairStatus } from "@svc/schema";
import { AppError } from "../errors/app-error";
import { markPairPaused, renameCcPair } from "../indexing/cc-pair-rows";
import { closePausedPairAttempt } from "../indexing/index-attempts";
import { lockEditableCcPair, readCcPair, type PairJobRequest } from "./cc-pair-record";
import { resumeCcPair } from "./resume-cc-pair";

/**
 * Renames a pair and/or pauses (`PAUSED`) or resumes (`ACTIVE`) it; `null` leaves a field as it is.
 * A pair being deleted cannot be changed (409). `boss` sends the indexing jobs of a resumed pair.
 */
export async function updateCcPair({
  db,
  boss,
  principal,
  ccPairId,
  name = null,
  status = null,
}: PairJobRequest & { name?: string | null; status?: SettableCcPairStatus | null }): Promise<Camel<CcPair>> {
  return db.$transaction(async (tx) => {
    const pair = await lockEditableCcPair(tx, principal, ccPairId);
    if (pair.status === "DELETING") {
      throw new AppError("CONFLICT", `Connector-credential pair ${ccPairId} is being deleted.`);
    }
    if (name !== null) await renameCcPair(tx, pair.id, name);
    // A paused pair is not being indexed: it does not read in progress (docs/decisions.md, "Index attempts for ingested documents").
    if (status === "PAUSED" && (await markPairPaused(tx, pair.id))) await closePausedPairAttempt(tx, pair.id);
    if (status === "ACTIVE") await resumeCcPair({ db: tx, boss, ccPairId: pair.id });
    return readCcPair(tx, pair.id);
  });
}
