import { Prisma, type AccessType, type DocumentIndexingStatus, type Tx } from "@svc/db";
import { canEditPair, canViewPair, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";

/** A document's link to a pair, with what visibility needs of the pair. */
export interface DocumentPairLink {
  ccPairId: number;
  accessType: AccessType;
}

/**
 * Whether the principal may see the document: an unscoped key sees every document; a scoped key
 * those linked to a pair it may see (its own pairs and public ones).
 */
export function canViewDocument(principal: Principal, links: readonly DocumentPairLink[]): boolean {
  return (
    principal.scopeCcPairIds === null ||
    links.some((link) => canViewPair(principal, { id: link.ccPairId, accessType: link.accessType }))
  );
}

/** The ids of the document's pairs the principal may see: a scoped key never learns of the others. */
export function visiblePairIds(principal: Principal, links: readonly DocumentPairLink[]): number[] {
  return links
    .filter((link) => canViewPair(principal, { id: link.ccPairId, accessType: link.accessType }))
    .map((link) => link.ccPairId);
}

/**
 * canViewDocument as an SQL condition on a `document d` row (`AND …`, empty for an unscoped key):
 * linked to one of the key's pairs or to a public pair.
 */
export function visibleDocumentCondition(principal: Principal): Prisma.Sql {
  const scope = principal.scopeCcPairIds;
  if (scope === null) return Prisma.empty;
  return Prisma.sql`AND EXISTS (
    SELECT 1 FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
    WHERE l.document_id = d.id AND (p.id = ANY(${scope}::int[]) OR p.access_type = 'public'))`;
}

/** Whether the principal may change the document: it may edit every pair the document belongs to. */
export function canEditDocument(principal: Principal, links: readonly DocumentPairLink[]): boolean {
  return links.every((link) => canEditPair(principal, link.ccPairId));
}

/** Unknown documents and documents the principal may not see get the same answer. */
export function documentNotFound(documentId: string): AppError {
  return new AppError("NOT_FOUND", `Document ${JSON.stringify(documentId)} does not exist.`);
}

export interface LockedDocument {
  fromIngestionApi: boolean;
  version: number;
  indexingStatus: DocumentIndexingStatus;
}

/**
 * Locks a document row `FOR UPDATE` (as ingestion and indexing lock it) for a change by the
 * principal: 404 when it is missing or invisible to the principal, 403 unless the principal may edit
 * every pair it belongs to. Its links are read after the lock, so none can appear or change until commit.
 */
export async function lockEditableDocument(tx: Tx, principal: Principal, documentId: string): Promise<LockedDocument> {
  const [document] = await tx.$queryRaw<LockedDocument[]>`
    SELECT from_ingestion_api AS "fromIngestionApi", version, indexing_status::text AS "indexingStatus"
    FROM document WHERE id = ${documentId} FOR UPDATE`;
  if (!document) throw documentNotFound(documentId);
  const links = await tx.$queryRaw<DocumentPairLink[]>`
    SELECT l.cc_pair_id AS "ccPairId", p.access_type::text AS "accessType"
    FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
    WHERE l.document_id = ${documentId}`;
  if (!canViewDocument(principal, links)) throw documentNotFound(documentId);
  if (!canEditDocument(principal, links)) {
    throw new AppError("FORBIDDEN", "This API key may not change every connector-credential pair the document belongs to.");
  }
  return document;
}
