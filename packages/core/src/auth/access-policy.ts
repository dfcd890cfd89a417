/**
 * Who may see or change what: the one statement of the rule (docs/decisions.md "Scoped keys" and
 * `external_access`). `access-policy-sql.ts` beside it states the same rule in SQL, and
 * `access-policy.int.test.ts` checks on generated cases that the two forms agree: change both or
 * neither. The rule itself is plain data (AccessRule), so another engine (a LanceDB filter) can be
 * built from it as the SQL is.
 *
 * This module imports nothing but the error type, so the console's browser code may use it too.
 */
import { AppError } from "../errors/app-error";

/**
 * What a caller may see and change, as data (docs/decisions.md "Search and who sees what").
 * - `allPairs`: a key without scope (admin or curator): every pair and every document.
 * - otherwise: `pairIds` are the caller's own pairs: it sees and changes them and every document
 *   linked to them. Read-only, it also sees public pairs and what the public may see: a document
 *   whose `external_access.is_public` is true, one that lists its `email` or one of its `groupIds`,
 *   and one without `external_access` in a public pair. A scoped key, whatever its role, has no
 *   email or groups; a search on behalf of a user has that user's and no pairs.
 * Every read path (search, GET by id, the document lists, connector-docs, the console) and the
 * visibility check before a change apply this one rule.
 */
export type AccessRule =
  | { allPairs: true }
  | { allPairs: false; pairIds: readonly number[]; email: string | null; groupIds: readonly string[] };

/** What the rule needs of a caller (a key or a console session). */
export interface AccessSubject {
  role: string;
  /** Pairs the key is limited to; null when it is not scoped. */
  scopeCcPairIds: readonly number[] | null;
}

/** A pair as the rule sees it. */
export interface PairAccess {
  id: number;
  accessType: string;
}

/** A document's link to a pair, with the pair's access type. */
export interface DocumentPairLink {
  ccPairId: number;
  accessType: string;
}

/** A document as the rule sees it: `isPublic` is null exactly when it came without external_access. */
export interface DocumentAccess {
  isPublic: boolean | null;
  externalUserEmails: readonly string[];
  externalUserGroupIds: readonly string[];
  links: readonly DocumentPairLink[];
}

/** Whom a search is for, when an admin searches on behalf of someone. */
export interface OnBehalfOf {
  email: string | null;
  groupIds: readonly string[];
}

export const ALL_PAIRS: AccessRule = { allPairs: true };

/** The rule of a key or session: its scope, no user identity. */
export function accessRuleOf(subject: AccessSubject): AccessRule {
  if (subject.scopeCcPairIds === null) return ALL_PAIRS;
  return { allPairs: false, pairIds: subject.scopeCcPairIds, email: null, groupIds: [] };
}

/**
 * The rule a search applies: the caller's own or, when an admin key without scope searches on behalf
 * of a user, exactly what that user sees. Anyone else asking for that is refused rather than
 * silently ignored: a scoped admin would otherwise step out of its scope.
 */
export function searchAccessRule(subject: AccessSubject, onBehalfOf: OnBehalfOf | null): AccessRule {
  if (onBehalfOf === null) return accessRuleOf(subject);
  if (!isUnscopedAdmin(subject)) {
    throw new AppError("FORBIDDEN", "Only an admin key without scope may search on behalf of a principal.");
  }
  return { allPairs: false, pairIds: [], email: onBehalfOf.email, groupIds: onBehalfOf.groupIds };
}

/** Whether the caller may write into (and change) the pair. */
export function canEditPair(rule: AccessRule, pairId: number): boolean {
  return rule.allPairs || rule.pairIds.includes(pairId);
}

/** Whether the caller may see the pair: its own, and every public one (read-only). */
export function canViewPair(rule: AccessRule, pair: PairAccess): boolean {
  return canEditPair(rule, pair.id) || pair.accessType === "public";
}

/** Whether the caller may see the document: read it, list it, find it (see AccessRule). */
export function canViewDocument(rule: AccessRule, document: DocumentAccess): boolean {
  if (rule.allPairs) return true;
  return (
    (document.isPublic === null && document.links.some((link) => link.accessType === "public")) ||
    document.isPublic === true ||
    (rule.email !== null && document.externalUserEmails.includes(rule.email)) ||
    document.externalUserGroupIds.some((group) => rule.groupIds.includes(group)) ||
    document.links.some((link) => rule.pairIds.includes(link.ccPairId))
  );
}

/** Whether the caller may change the document: every pair it belongs to is the caller's. */
export function canEditDocument(rule: AccessRule, links: readonly DocumentPairLink[]): boolean {
  return links.every((link) => canEditPair(rule, link.ccPairId));
}

/**
 * The pairs the caller may change, for a check that runs where the rule cannot (ingestion's hot-path
 * statement, documents/write-documents.ts: a scoped key may not write an id any other pair holds, as
 * canEditDocument says); null when it may change every pair.
 */
export function editablePairIds(rule: AccessRule): readonly number[] | null {
  return rule.allPairs ? null : rule.pairIds;
}

/** The document's pair ids that the caller may see: a scoped key never learns of the others. */
export function visiblePairIds(rule: AccessRule, links: readonly DocumentPairLink[]): number[] {
  return links.filter((link) => canViewPair(rule, { id: link.ccPairId, accessType: link.accessType })).map((link) => link.ccPairId);
}

/**
 * An event of the outbox as the rule sees it (docs/decisions.md "Events"): the pairs it names (with
 * their access types now) and, for a document's event, the document as it is now (null when the
 * event has none, or the document no longer exists).
 */
export interface EventAccess {
  documentId: string | null;
  pairs: readonly DocumentPairLink[];
  document: DocumentAccess | null;
}

/**
 * Whether the caller may see the event, by the rules above: a document's event when it may see the
 * document now (canViewDocument, as GET and search decide); a document that no longer exists (its
 * deletion) when one of the pairs it was linked to is the caller's, since its external access is gone
 * with it; a pair's event (attempt.finished) when it may see the pair; an event of no document and no
 * pair (rebuild.finished) when it is an admin without scope, as for the rebuild itself.
 */
export function canViewEvent(subject: AccessSubject, event: EventAccess): boolean {
  const rule = accessRuleOf(subject);
  if (event.documentId !== null) {
    const document = event.document ?? { isPublic: false, externalUserEmails: [], externalUserGroupIds: [], links: event.pairs };
    return canViewDocument(rule, document);
  }
  if (event.pairs.length === 0) return isUnscopedAdmin(subject);
  return event.pairs.some((link) => canViewPair(rule, { id: link.ccPairId, accessType: link.accessType }));
}

/** For what reaches beyond any pair (API keys, index rebuilds): an admin without scope. */
export function isUnscopedAdmin(subject: AccessSubject): boolean {
  return subject.role === "admin" && subject.scopeCcPairIds === null;
}

/**
 * The rule as the search index filters on it (plain data; @svc/search-index's SearchAccess): the
 * pairs whose access type is public now (read at query time, so a pair's change shows at once), the
 * caller's own pairs, email and groups. The index evaluates canViewDocument's conditions on the
 * fields each row carries.
 */
export function searchIndexAccess(
  rule: AccessRule,
  publicPairIds: readonly number[],
): { all: true } | { all: false; publicPairIds: number[]; visiblePairIds: number[]; email: string | null; groups: string[] } {
  if (rule.allPairs) return { all: true };
  return { all: false, publicPairIds: [...publicPairIds], visiblePairIds: [...rule.pairIds], email: rule.email, groups: [...rule.groupIds] };
}
