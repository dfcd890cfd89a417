import type { DbOrTx } from "@svc/db";
import type { Camel, DocMinimalInfo } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { requireViewableCcPair } from "../connectors/cc-pair-record";
import { walkDocumentPages } from "./document-page";
import { listCcPairDocuments } from "./list-cc-pair-documents";

/**
 * Every document of one pair after `afterId`, in id order, as batches read one at a time. The pair
 * is checked before anything is streamed, so a missing or invisible pair is still a 404.
 */
export async function streamCcPairDocuments({
  db,
  principal,
  ccPairId,
  afterId,
}: {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
  afterId: string | null;
}): Promise<AsyncIterable<Camel<DocMinimalInfo>[]>> {
  await requireViewableCcPair(db, principal, ccPairId);
  return walkDocumentPages((after, limit) => listCcPairDocuments({ db, principal, ccPairId, limit, afterId: after }), afterId);
}
