import type { Db } from "@svc/db";
import type { IngestionDocument, IngestionResult } from "@svc/schema";
import { accessRuleOf, canEditPair } from "../auth/access-policy";
import type { Principal } from "../auth/principal";
import { CC_PAIR_NOT_FOUND, DEFAULT_CC_PAIR_ID, MAX_PAIR_ID } from "../model/default-pair";
import { AppError } from "../errors/app-error";
import type { PgBoss } from "../jobs/job-queue";
import { documentWriteBatcher } from "./document-write-batcher";
import { inferDocumentId } from "./infer-document-id";
import { resolveSections } from "./resolve-sections";

/**
 * Creates or replaces one document and enqueues its indexing, in one transaction (shared with other
 * concurrent writes, see DocumentWriteBatcher): when this returns, both the document and its job are
 * durable; when it throws, neither is.
 */
export async function ingestDocument({
  db,
  boss,
  principal,
  input,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  input: IngestionDocument;
}): Promise<IngestionResult> {
  const { document } = input;
  const ccPairId = await resolveTargetPair({ db, principal, ccPairId: input.cc_pair_id });
  const sections = await resolveSections({ db, sections: document.sections });
  const documentId = document.id ? document.id : inferDocumentId(document.semantic_identifier);
  const externalAccess = document.external_access ?? null;

  const written = await documentWriteBatcher(db, boss).write({
    id: documentId,
    semantic_identifier: document.semantic_identifier,
    title: document.title ?? null,
    source: document.source ?? "ingestion_api",
    link: sections.find((section) => section.link)?.link ?? null,
    metadata: document.metadata,
    doc_updated_at: (document.doc_updated_at ?? new Date()).toISOString(),
    primary_owners: document.primary_owners ?? null,
    secondary_owners: document.secondary_owners ?? null,
    additional_info: document.additional_info ?? null,
    doc_metadata: document.doc_metadata ?? null,
    external_user_emails: externalAccess?.external_user_emails ?? [],
    external_user_group_ids: externalAccess?.external_user_group_ids ?? [],
    is_public: externalAccess?.is_public ?? null,
    chunk_count: document.chunk_count ?? null,
    sections,
    cc_pair_id: ccPairId,
    write_scope: principal.scopeCcPairIds,
  });
  return { document_id: written.id, already_existed: !written.inserted };
}

/** Which pair the document attaches to: the default pair unless the request names one. */
async function resolveTargetPair({
  db,
  principal,
  ccPairId,
}: {
  db: Db;
  principal: Principal;
  ccPairId: number | null | undefined;
}): Promise<number> {
  const targetId = ccPairId ? ccPairId : DEFAULT_CC_PAIR_ID;
  if (targetId !== DEFAULT_CC_PAIR_ID) {
    // Ids past PostgreSQL's integer range name no pair (and would make the query itself fail).
    const pair = targetId <= MAX_PAIR_ID
      ? await db.connectorCredentialPair.findUnique({ where: { id: targetId }, select: { status: true } })
      : null;
    if (!pair || pair.status === "DELETING") throw new AppError("BAD_REQUEST", CC_PAIR_NOT_FOUND);
  }
  if (!canEditPair(accessRuleOf(principal), targetId)) {
    throw new AppError("FORBIDDEN", `This API key may not ingest into connector-credential pair ${targetId}.`);
  }
  return targetId;
}
