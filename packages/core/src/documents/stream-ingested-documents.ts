import type { DbOrTx } from "@svc/db";
import type { Camel, DocMinimalInfo } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { walkDocumentPages } from "./document-page";
import { listIngestedDocuments } from "./list-ingested-documents";

/**
 * Every document created through the ingestion API that the principal may see, after `afterId`, in
 * id order, as batches read one at a time (docs/decisions.md "Per-document routes and document lists": the listing without
 * `limit` is streamed in constant memory).
 */
export function streamIngestedDocuments({
  db,
  principal,
  afterId,
}: {
  db: DbOrTx;
  principal: Principal;
  afterId: string | null;
}): AsyncIterable<Camel<DocMinimalInfo>[]> {
  return walkDocumentPages((after, limit) => listIngestedDocuments({ db, principal, limit, afterId: after }), afterId);
}
