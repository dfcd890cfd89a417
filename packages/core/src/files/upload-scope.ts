import type { Prisma } from "@svc/db";
import { accessRuleOf, canEditPair } from "../auth/access-policy";
import type { Principal } from "../auth/principal";

// An upload belongs to the scope of the key or session that made it (docs/decisions.md "Uploads"):
// the pairs stored on its row, none when the key was unscoped. A file holds no pair's documents, so
// this is the access policy's pair rule applied to the uploader's pairs rather than a document's links.

/** The scope an upload made by the principal stores: its pairs, or none when it is unscoped. */
export function uploadScopeOf(principal: Principal): number[] {
  return [...(principal.scopeCcPairIds ?? [])];
}

/**
 * The uploads the principal lists, reads and names in image sections: every one when it is
 * unscoped, else those sharing one of its pairs (an unscoped key's uploads share none).
 */
export function visibleUploadsWhere(principal: Principal): Prisma.UploadedFileWhereInput {
  const rule = accessRuleOf(principal);
  return rule.allPairs ? {} : { scopeCcPairIds: { hasSome: [...rule.pairIds] } };
}

/** Deleting takes away a file others of the upload's pairs use: every one of them must be the caller's. */
export function canDeleteUpload(principal: Principal, uploadScope: readonly number[]): boolean {
  const rule = accessRuleOf(principal);
  return rule.allPairs || (uploadScope.length > 0 && uploadScope.every((pairId) => canEditPair(rule, pairId)));
}
