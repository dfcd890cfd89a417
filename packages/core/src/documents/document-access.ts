import type { DocumentIndexingStatus, Tx } from "@svc/db";
import { accessRuleOf, canEditDocument, canViewDocument, type DocumentAccess, type DocumentPairLink } from "../auth/access-policy";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";

/**
 * Unknown documents and documents the principal may not see get the same answer, the original's
 * (docs/decisions.md "Every error is JSON").
 */
export function documentNotFound(): AppError {
  return new AppError("NOT_FOUND", "Document not found");
}

export interface LockedDocument {
  fromIngestionApi: boolean;
  version: number;
  indexingStatus: DocumentIndexingStatus;
}

/** The locked row with what the access rule reads of it. */
type LockedRow = LockedDocument & Omit<DocumentAccess, "links">;

/**
 * Locks a document row `FOR UPDATE` (as ingestion and indexing lock it) for a change by the
 * principal: 404 when it is missing or invisible to the principal, 403 unless the principal may edit
 * every pair it belongs to. Its links are read after the lock, so none can appear or change until commit.
 */
export async function lockEditableDocument(tx: Tx, principal: Principal, documentId: string): Promise<LockedDocument> {
  const [row] = await tx.$queryRaw<LockedRow[]>`
    SELECT from_ingestion_api AS "fromIngestionApi", version, indexing_status::text AS "indexingStatus",
      is_public AS "isPublic", external_user_emails AS "externalUserEmails", external_user_group_ids AS "externalUserGroupIds"
    FROM document WHERE id = ${documentId} FOR UPDATE`;
  if (!row) throw documentNotFound();
  const links = await tx.$queryRaw<DocumentPairLink[]>`
    SELECT l.cc_pair_id AS "ccPairId", p.access_type::text AS "accessType"
    FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
    WHERE l.document_id = ${documentId}`;
  const rule = accessRuleOf(principal);
  if (!canViewDocument(rule, { ...row, links })) throw documentNotFound();
  if (!canEditDocument(rule, links)) {
    throw new AppError("FORBIDDEN", "This API key may not change every connector-credential pair the document belongs to.");
  }
  return { fromIngestionApi: row.fromIngestionApi, version: row.version, indexingStatus: row.indexingStatus };
}
