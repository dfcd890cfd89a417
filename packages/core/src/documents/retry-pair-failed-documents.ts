import type { RetryPairDocumentsResult } from "@svc/schema";
import { accessRuleOf, canEditPair } from "../auth/access-policy";
import { editablePairSql } from "../auth/access-policy-sql";
import { requireViewableCcPair, type PairJobRequest } from "../connectors/cc-pair-record";
import { AppError } from "../errors/app-error";
import { failedDocumentSql } from "../model/failed-document-sql";
import { sendRetry } from "./retry-document-indexing";

/**
 * Retries every failed document of a pair (the pair page's "Retry all failed"), in one transaction,
 * as retryDocumentIndexing retries one: the pair must be the key's to change (404 unseen, 403 out of
 * scope, as the access policy says), and a document that also belongs to a pair the key may not
 * change is skipped and counted, as retrying it alone would be refused. Rows are locked in id order,
 * as ingestion and indexing lock them.
 */
export async function retryPairFailedDocuments({ db, boss, principal, ccPairId }: PairJobRequest): Promise<RetryPairDocumentsResult> {
  await requireViewableCcPair(db, principal, ccPairId);
  const rule = accessRuleOf(principal);
  if (!canEditPair(rule, ccPairId)) throw new AppError("FORBIDDEN", `This API key may not change connector-credential pair ${ccPairId}.`);
  return db.$transaction(async (tx) => {
    const failed = await tx.$queryRaw<{ id: string; version: number; editable: boolean }[]>`
      SELECT d.id, d.version, NOT EXISTS (
        SELECT 1 FROM document_by_cc_pair o JOIN connector_credential_pair op ON op.id = o.cc_pair_id
        WHERE o.document_id = d.id AND NOT ${editablePairSql(rule, "op")}) AS editable
      FROM document d
      WHERE d.id IN (SELECT l.document_id FROM document_by_cc_pair l WHERE l.cc_pair_id = ${ccPairId}) AND ${failedDocumentSql("d")}
      ORDER BY d.id
      FOR UPDATE OF d`;
    const retried = failed.filter((document) => document.editable);
    await sendRetry(tx, boss, retried);
    return { retried: retried.length, skipped: failed.length - retried.length };
  });
}
