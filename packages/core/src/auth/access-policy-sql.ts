/**
 * The SQL twin of access-policy.ts: each function is the condition of its namesake there, on a row
 * of the table alias it is given (`connector_credential_pair` or `document`). Keep the two in step;
 * access-policy.int.test.ts checks that they agree.
 */
import { Prisma, sqlAlias as alias } from "@svc/db";
import { canEditPair, type AccessRule, type PairAccess } from "./access-policy";

/** canEditPair on the pair row `pair`. */
export function editablePairSql(rule: AccessRule, pair: string): Prisma.Sql {
  if (rule.allPairs) return Prisma.sql`TRUE`;
  return Prisma.sql`(${alias(pair)}.id = ANY(${[...rule.pairIds]}::int[]))`;
}

/** canViewPair on the pair row `pair`. */
export function viewablePairSql(rule: AccessRule, pair: string): Prisma.Sql {
  if (rule.allPairs) return Prisma.sql`TRUE`;
  const p = alias(pair);
  return Prisma.sql`(${p}.id = ANY(${[...rule.pairIds]}::int[]) OR ${p}.access_type = 'public')`;
}

/**
 * canViewDocument on the document row `document`. The two link conditions (a public pair for a
 * document without external_access, or one of the caller's pairs) are one EXISTS whose condition
 * reads the document's own `is_public`: PostgreSQL can then only run it per document, through the
 * link table's primary key. As two EXISTS, each correlated by the document id alone, the planner may
 * run one as a hashed subplan instead, which reads every link of every public pair to admit ten
 * documents (chosen without statistics on the 100 k-chunk bench corpus: 10–17 ms instead of < 1 ms,
 * and growing with the corpus; bench/RESULTS.md, "REST search: where svc's time went").
 */
export function viewableDocumentSql(rule: AccessRule, document: string): Prisma.Sql {
  if (rule.allPairs) return Prisma.sql`TRUE`;
  const d = alias(document);
  return Prisma.sql`(
    ${d}.is_public = true
    OR ${rule.email}::text = ANY(${d}.external_user_emails)
    OR ${d}.external_user_group_ids && ${[...rule.groupIds]}::text[]
    OR EXISTS (SELECT 1 FROM document_by_cc_pair fl JOIN connector_credential_pair fp ON fp.id = fl.cc_pair_id
      WHERE fl.document_id = ${d}.id
        AND ((${d}.is_public IS NULL AND fp.access_type = 'public') OR fl.cc_pair_id = ANY(${[...rule.pairIds]}::int[]))))`;
}

/**
 * viewableDocumentSql for a document read through its link to `pair` (a pair's document lists), with
 * what that link already settles: every document of the caller's own pair is visible, and one of a
 * public pair is whenever it has no external_access. A long list of a pair then costs a link lookup
 * per row only for the documents with external_access, not for all of them.
 */
export function viewableDocumentOfPairSql(rule: AccessRule, pair: PairAccess, document: string): Prisma.Sql {
  if (canEditPair(rule, pair.id)) return Prisma.sql`TRUE`;
  if (pair.accessType === "public") return Prisma.sql`(${alias(document)}.is_public IS NULL OR ${viewableDocumentSql(rule, document)})`;
  return viewableDocumentSql(rule, document);
}
