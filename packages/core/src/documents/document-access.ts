import type { AccessType } from "@svc/db";
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

/** Whether the principal may change the document: it may edit every pair the document belongs to. */
export function canEditDocument(principal: Principal, links: readonly DocumentPairLink[]): boolean {
  return links.every((link) => canEditPair(principal, link.ccPairId));
}

/** Unknown documents and documents the principal may not see get the same answer. */
export function documentNotFound(documentId: string): AppError {
  return new AppError("NOT_FOUND", `Document ${JSON.stringify(documentId)} does not exist.`);
}
