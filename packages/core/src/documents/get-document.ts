import type { DbOrTx, DocumentIndexingStatus as StoredIndexingStatus } from "@svc/db";
import { fromWire, StoredOwnerSchema, type Camel, type DocumentDetail, type DocumentIndexingStatus, type StoredExternalAccess, type StoredOwner } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { accessRuleOf, canViewDocument, visiblePairIds } from "../auth/access-policy";
import { documentNotFound } from "./document-access";
import type { SameValues } from "../same-values";

// The wire enum and the database enum are the same set of values (STYLE.md habit 3).
const _sameIndexingStatuses: SameValues<DocumentIndexingStatus, StoredIndexingStatus> = true;

/** What GET /svc-api/ingestion/{document_id} reads of a document. */
const documentDetailSelect = {
  id: true,
  semanticIdentifier: true,
  title: true,
  source: true,
  metadata: true,
  docUpdatedAt: true,
  primaryOwners: true,
  secondaryOwners: true,
  fromIngestionApi: true,
  additionalInfo: true,
  docMetadata: true,
  externalUserEmails: true,
  externalUserGroupIds: true,
  isPublic: true,
  version: true,
  indexingStatus: true,
  indexedVersion: true,
  indexedAt: true,
  chunkCount: true,
  lastError: true,
  indexAttempts: true,
  sections: { select: { text: true, link: true, imageFileId: true }, orderBy: { position: "asc" } },
  pairs: { select: { ccPairId: true, ccPair: { select: { accessType: true } } }, orderBy: { ccPairId: "asc" } },
} as const;

/** Which document to read, and for whom: the input of every single-document read. */
export interface DocumentLookup {
  db: DbOrTx;
  principal: Principal;
  documentId: string;
}

/**
 * One stored document with where it stands in its indexing. A document the principal may not see
 * is reported as missing.
 */
export async function getDocument({ db, principal, documentId }: DocumentLookup): Promise<Camel<DocumentDetail>> {
  const row = await db.document.findUnique({ where: { id: documentId }, select: documentDetailSelect });
  const links = row?.pairs.map((link) => ({ ccPairId: link.ccPairId, accessType: link.ccPair.accessType })) ?? [];
  const rule = accessRuleOf(principal);
  if (!row || !canViewDocument(rule, { ...row, links })) throw documentNotFound();
  // Once indexed, the chunks the current generation holds (by the chunk key: a rebuild with another
  // chunk size changes the count without touching the document row); before, the client's value.
  const chunkCount =
    row.indexedVersion === null
      ? row.chunkCount
      : await db.documentChunk.count({ where: { documentId, generation: { status: "current" } } });

  // is_public is null exactly when the client sent no external_access.
  const externalAccess: Camel<StoredExternalAccess> | null =
    row.isPublic === null
      ? null
      : { externalUserEmails: row.externalUserEmails, externalUserGroupIds: row.externalUserGroupIds, isPublic: row.isPublic };
  return {
    id: row.id,
    semanticIdentifier: row.semanticIdentifier,
    title: row.title,
    source: row.source,
    metadata: row.metadata as DocumentDetail["metadata"],
    docUpdatedAt: row.docUpdatedAt.toISOString(),
    sections: row.sections.map((section) => ({ text: section.text, link: section.link, imageFileId: section.imageFileId })),
    primaryOwners: storedOwners(row.primaryOwners),
    secondaryOwners: storedOwners(row.secondaryOwners),
    externalAccess,
    additionalInfo: row.additionalInfo,
    docMetadata: row.docMetadata as DocumentDetail["doc_metadata"],
    fromIngestionApi: row.fromIngestionApi,
    indexingStatus: row.indexingStatus,
    currentVersion: row.version,
    indexedVersion: row.indexedVersion,
    chunkCount,
    indexedAt: row.indexedAt?.toISOString() ?? null,
    lastError: row.lastError,
    attempts: row.indexAttempts,
    ccPairIds: visiblePairIds(rule, links),
  };
}

/** Owners are stored as the client sent them (BasicExpertInfo's snake_case JSON). */
function storedOwners(owners: unknown): Camel<StoredOwner>[] | null {
  return owners === null ? null : (owners as StoredOwner[]).map((owner) => fromWire(StoredOwnerSchema, owner));
}
