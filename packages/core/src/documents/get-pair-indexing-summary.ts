import { Prisma, sqlAlias } from "@svc/db";
import type { PairIndexingSummary } from "@svc/schema";
import { pairDocumentFilterSql } from "./list-pair-document-statuses";
import { servingAttemptSql } from "../search-index/index-generations";
import { requireViewableCcPair, type PairRequest } from "../connectors/cc-pair-record";
import { repeatedErrorStateSql } from "../connectors/list-indexing-status";

/**
 * A pair's page header: whether it is in the repeated error state (the listing's rule, over the
 * attempts that count for the serving index) and its documents counted by the page's filters: all of
 * them, numbers about the pair as its docs_indexed is (docs/decisions.md "Search and who sees what").
 */
export async function getPairIndexingSummary({ db, principal, ccPairId }: PairRequest): Promise<PairIndexingSummary> {
  await requireViewableCcPair(db, principal, ccPairId);
  const [row] = await db.$queryRaw<{ repeated: boolean | null; indexed: number; queued: number; failed: number }[]>`
    SELECT
      ${repeatedErrorStateSql((ia) => Prisma.sql`${sqlAlias(ia)}.cc_pair_id = ${ccPairId} AND ${servingAttemptSql(ia)}`)} AS repeated,
      (count(*) FILTER (WHERE ${pairDocumentFilterSql("indexed", "d")}))::int AS indexed,
      (count(*) FILTER (WHERE ${pairDocumentFilterSql("queued", "d")}))::int AS queued,
      (count(*) FILTER (WHERE ${pairDocumentFilterSql("failed", "d")}))::int AS failed
    FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id
    WHERE l.cc_pair_id = ${ccPairId}`;
  return {
    inRepeatedErrorState: row?.repeated ?? false,
    documents: { indexed: row?.indexed ?? 0, queued: row?.queued ?? 0, failed: row?.failed ?? 0 },
  };
}
