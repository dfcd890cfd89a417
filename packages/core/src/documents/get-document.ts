import type { DbOrTx, DocumentIndexingStatus as StoredIndexingStatus } from "@svc/db";
import type { DocumentDetail, DocumentIndexingStatus, StoredExternalAccess, StoredOwner } from "@svc/schema";
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
export async function getDocument({ db, principal, documentId }: DocumentLookup): Promise<DocumentDetail> {
  const row = await db.document.findUnique({ where: { id: documentId }, select: documentDetailSelect });
  const links = row?.pairs.map((link) => ({ ccPairId: link.ccPairId, accessType: link.ccPair.accessType })) ?? [];
  const rule = accessRuleOf(principal);
  if (!row || !canViewDocument(rule, links)) throw documentNotFound(documentId);
  // Once indexed, the chunks the current generation holds (by the chunk key: a rebuild with another
  // chunk size changes the count without touching the document row); before, the client's value.
  const chunkCount =
    row.indexedVersion === null
      ? row.chunkCount
      : await db.documentChunk.count({ where: { documentId, generation: { status: "current" } } });

  // is_public is null exactly when the client sent no external_access.
  const externalAccess: StoredExternalAccess | null =
    row.isPublic === null
      ? null
      : {
          external_user_emails: row.externalUserEmails,
          external_user_group_ids: row.externalUserGroupIds,
          is_public: row.isPublic,
        };
  return {
    id: row.id,
    semantic_identifier: row.semanticIdentifier,
    title: row.title,
    source: row.source,
    metadata: row.metadata as DocumentDetail["metadata"],
    doc_updated_at: row.docUpdatedAt.toISOString(),
    sections: row.sections.map((section) => ({ text: section.text, link: section.link, image_file_id: section.imageFileId })),
    primary_owners: row.primaryOwners as StoredOwner[] | null,
    secondary_owners: row.secondaryOwners as StoredOwner[] | null,
    external_access: externalAccess,
    additional_info: row.additionalInfo,
    doc_metadata: row.docMetadata as DocumentDetail["doc_metadata"],
    from_ingestion_api: row.fromIngestionApi,
    indexing_status: row.indexingStatus,
    current_version: row.version,
    indexed_version: row.indexedVersion,
    chunk_count: chunkCount,
    indexed_at: row.indexedAt?.toISOString() ?? null,
    last_error: row.lastError,
    attempts: row.indexAttempts,
    cc_pair_ids: visiblePairIds(rule, links),
  };
}
