import type { Db } from "@svc/db";
import type { IngestionDocument, Loc } from "@svc/schema";
import { accessRuleOf, canEditPair, editablePairIds } from "../auth/access-policy";
import type { Principal } from "../auth/principal";
import { AppError, isAppError } from "../errors/app-error";
import { CC_PAIR_NOT_FOUND, DEFAULT_CC_PAIR_ID, MAX_PAIR_ID } from "../model/default-pair";
import { inferDocumentId } from "./infer-document-id";
import { findUploadedFileIds, resolveSections } from "./resolve-sections";
import type { DocumentWrite } from "./write-documents";

/** One validated ingestion body, and where the request put it (`["body"]`, or a batch item's loc). */
export interface IngestionInput {
  input: IngestionDocument;
  bodyLoc: Loc;
}

/** A document ready to write, or the error that the single call would answer for it. */
export type PreparedDocumentWrite = { write: DocumentWrite } | { error: AppError };

/**
 * Turns validated ingestion bodies into the rows to write: the target pair checked (it exists, and
 * the key may ingest into it), image references resolved, the id inferred when omitted. The single
 * call and the bulk call both come here, so an item of a batch gets exactly the single call's
 * answer; the lookups are one query each for all the inputs.
 */
export async function prepareDocumentWrites({
  db,
  principal,
  inputs,
}: {
  db: Db;
  principal: Principal;
  inputs: readonly IngestionInput[];
}): Promise<PreparedDocumentWrite[]> {
  const [livePairIds, knownFileIds] = await Promise.all([
    findLivePairIds(db, inputs.map(({ input }) => targetPairId(input.cc_pair_id))),
    findUploadedFileIds({ db, principal, sections: inputs.flatMap(({ input }) => input.document.sections) }),
  ]);
  return inputs.map(({ input, bodyLoc }) => {
    try {
      return { write: documentWriteOf({ input, bodyLoc, principal, livePairIds, knownFileIds }) };
    } catch (error) {
      if (isAppError(error)) return { error };
      throw error;
    }
  });
}

/** The pair a document attaches to: the default pair unless the request names one. */
function targetPairId(ccPairId: number | null | undefined): number {
  return ccPairId ? ccPairId : DEFAULT_CC_PAIR_ID;
}

/** Which of the named pairs exist and are not being deleted (the default pair always does). */
async function findLivePairIds(db: Db, pairIds: readonly number[]): Promise<Set<number>> {
  // Ids past PostgreSQL's integer range name no pair (and would make the query itself fail).
  const named = [...new Set(pairIds)].filter((id) => id !== DEFAULT_CC_PAIR_ID && id <= MAX_PAIR_ID);
  const live = new Set([DEFAULT_CC_PAIR_ID]);
  if (named.length === 0) return live;
  const pairs = await db.connectorCredentialPair.findMany({
    where: { id: { in: named }, status: { not: "DELETING" } },
    select: { id: true },
  });
  for (const pair of pairs) live.add(pair.id);
  return live;
}

function documentWriteOf({
  input,
  bodyLoc,
  principal,
  livePairIds,
  knownFileIds,
}: IngestionInput & { principal: Principal; livePairIds: ReadonlySet<number>; knownFileIds: ReadonlySet<string> }): DocumentWrite {
  const { document } = input;
  const ccPairId = targetPairId(input.cc_pair_id);
  if (!livePairIds.has(ccPairId)) throw new AppError("BAD_REQUEST", CC_PAIR_NOT_FOUND);
  const rule = accessRuleOf(principal);
  if (!canEditPair(rule, ccPairId)) {
    throw new AppError("FORBIDDEN", `This API key may not ingest into connector-credential pair ${ccPairId}.`);
  }
  const sections = resolveSections({ sections: document.sections, knownFileIds, bodyLoc });
  const externalAccess = document.external_access ?? null;
  return {
    id: document.id ? document.id : inferDocumentId(document.semantic_identifier),
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
    write_scope: editablePairIds(rule),
    if_version: input.if_version ?? null,
    if_newer: input.if_newer ?? false,
  };
}
