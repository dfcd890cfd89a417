import { Prisma, sqlAlias, withCancelOnAbort, type DbOrTx } from "@svc/db";
import {
  INDEXING_STATUS_PAGE_SIZE,
  type AccessType,
  type Camel,
  type ConnectorCredentialPairStatus,
  type ConnectorIndexingStatusGroup,
  type ConnectorIndexingStatusLite,
  type ConnectorIndexingStatusResponse,
  type ConnectorSort,
  type DocsCountOperator,
  type DocumentSource,
  type FederatedConnectorSource,
  type FederatedConnectorStatus,
  type IndexingStatus,
  type IndexingStatusRequest,
} from "@svc/schema";
import { accessRuleOf } from "../auth/access-policy";
import { editablePairSql, viewablePairSql } from "../auth/access-policy-sql";
import type { Principal } from "../auth/principal";
import { pairPermissions } from "./pair-permissions";
import { buildingAttempt, readBuildingGenerationId, servingAttempt } from "../search-index/index-generations";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import { failedDocumentSql } from "../model/failed-document-sql";

const FEDERATED_PREFIX = "federated_";

/** The last attempts that all have to fail for a pair to be in a repeated error state. */
const REPEATED_ERROR_ATTEMPTS = 5;

/*
 * A pair's last success and its repeated error state come from its ingestion attempts only: a rebuild
 * rewrites what was indexed already, so its attempts (`index_attempt.rebuild`) stay in the pair's
 * history, and its latest status may be one of theirs, but neither moves the pair's last success nor
 * puts the pair into, or takes it out of, the repeated error state (docs/decisions.md, "A rebuild does
 * not move a pair's last success"). The two rules below are the one definition of each, read by the
 * listing (REST, console, CLI) and a pair's page header; no column keeps a copy.
 */

/** The `index_attempt` rows (alias `attempt`) of a pair's ingestion, as opposed to a rebuild's. */
function ingestionAttemptSql(attempt: string): Prisma.Sql {
  return Prisma.sql`NOT ${sqlAlias(attempt)}.rebuild`;
}

/**
 * The repeated error state: the pair's last REPEATED_ERROR_ATTEMPTS ingestion attempts (among the
 * `index_attempt` rows `pairAttempts` admits, a condition on the alias it is given) all failed.
 */
export function repeatedErrorStateSql(pairAttempts: (attempt: string) => Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT count(*) = ${REPEATED_ERROR_ATTEMPTS} AND bool_and(last_attempts.status = 'failed')
    FROM (
      SELECT ia.status FROM index_attempt ia WHERE ${pairAttempts("ia")} AND ${ingestionAttemptSql("ia")}
      ORDER BY ia.id DESC LIMIT ${REPEATED_ERROR_ATTEMPTS}
    ) last_attempts)`;
}

/**
 * The last success: when the pair's latest ingestion attempt that indexed its documents
 * (`success` or `completed_with_errors`, among the rows `pairAttempts` admits) finished; NULL when none did.
 */
function lastSuccessSql(pairAttempts: (attempt: string) => Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(
    SELECT ia.finished_at FROM index_attempt ia
    WHERE ${pairAttempts("ia")} AND ${ingestionAttemptSql("ia")} AND ia.status IN ('success', 'completed_with_errors')
    ORDER BY ia.id DESC LIMIT 1)`;
}

/**
 * Which index attempts the attempt-derived fields (statuses, `in_progress`, `last_success`, the
 * latest attempt's count, the repeated-error flag) and `last_status_filters` read: by default the
 * attempts that count for the index search reads (every generation but one being built, so history
 * survives a swap); with `secondary_index: true`, the attempts of the generation a rebuild is
 * building, none when no rebuild runs (so those fields are null/false).
 */
type AttemptSource = { kind: "current" | "building"; buildingGenerationId: number | null };

async function attemptSourceFor(db: DbOrTx, request: Camel<IndexingStatusRequest>): Promise<AttemptSource> {
  return { kind: request.secondaryIndex ? "building" : "current", buildingGenerationId: await readBuildingGenerationId(db) };
}

/** The condition an `index_attempt` row (under the alias `attempt`) must meet to count for the given attempt source. */
function attemptsOf(source: AttemptSource, attempt = "ia"): Prisma.Sql {
  return source.kind === "current" ? servingAttempt(source.buildingGenerationId, attempt) : buildingAttempt(source.buildingGenerationId, attempt);
}

const COMPARISONS: Record<DocsCountOperator, Prisma.Sql> = {
  ">": Prisma.raw(">"),
  "<": Prisma.raw("<"),
  "=": Prisma.raw("="),
};

/**
 * The value a pair is ordered by within its source (on `connector_credential_pair p`), for the
 * console's sort; null for the contract's order or a sort by source (which orders the groups).
 * The attempt-derived keys read the same attempts as the listing's fields.
 */
function sortKeySql(sort: ConnectorSort | null, source: AttemptSource): Prisma.Sql | null {
  const attempts = attemptsOf(source);
  switch (sort?.column) {
    case undefined:
    case "source":
      return null;
    case "name":
      return Prisma.sql`lower(p.name)`;
    case "status":
      return Prisma.sql`p.status::text`;
    case "docs_indexed":
      return Prisma.sql`p.docs_indexed::bigint`;
    case "failed":
      return Prisma.sql`COALESCE(failed.count, 0)`;
    case "last_status":
      return source.kind === "current"
        ? Prisma.sql`p.last_attempt_status::text`
        : Prisma.sql`(SELECT ia.status::text FROM index_attempt ia WHERE ia.cc_pair_id = p.id AND ${attempts} ORDER BY ia.id DESC LIMIT 1)`;
    case "last_success":
      return lastSuccessSql((ia) => Prisma.sql`${sqlAlias(ia)}.cc_pair_id = p.id AND ${attemptsOf(source, ia)}`);
  }
}

interface ListingRow {
  /** 0: a connector-credential pair; 1: a federated connector. */
  kind: number;
  id: number;
  source: DocumentSource;
  federated_source: string | null;
  name: string;
  access_type: AccessType | null;
  status: ConnectorCredentialPairStatus | null;
  docs_indexed: number;
  is_editable: boolean;
  total_connectors: number;
  active_connectors: number;
  public_connectors: number;
  total_docs_indexed: bigint | number;
  last_status: IndexingStatus | null;
  latest_docs_indexed: number | null;
  last_finished_status: IndexingStatus | null;
  last_success: Date | null;
  in_repeated_error_state: boolean | null;
}

/** The pairs (alias `pair`) the listing shows: not the default pair, nor one being deleted. */
function listedPairSql(pair: string): Prisma.Sql {
  const p = sqlAlias(pair);
  return Prisma.sql`${p}.id <> ${DEFAULT_CC_PAIR_ID} AND ${p}.status <> 'DELETING'`;
}

/**
 * How many of the pairs the principal's listing shows are being indexed now: their latest attempt is
 * `in_progress`, as the listing's `in_progress` says (read from the pair's `last_attempt_status`, the
 * copy of that attempt's status). Indexing health's "Indexing now"; an attempt is open only while
 * the pair has documents the worker has taken up and not finished (indexing/index-attempts.ts).
 */
export async function countPairsIndexing({ db, principal }: { db: DbOrTx; principal: Principal }): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM connector_credential_pair p
    WHERE ${listedPairSql("p")} AND p.last_attempt_status = 'in_progress' AND ${viewablePairSql(accessRuleOf(principal), "p")}`;
  return row?.count ?? 0;
}

/**
 * POST /manage/admin/connector/indexing-status, exactly as docs/decisions.md describes it: connector-
 * credential pairs and federated connectors grouped by source, filtered, counted and paged.
 *
 * One SQL statement, after a look-up of the building generation (index-generations.ts). Counts
 * come from the stored `docs_indexed` (never from counting documents), so the cost depends on the
 * number of pairs, not of documents: filters and per-source window aggregates run over the pair
 * table; `last_status_filters` reads the pair's `last_attempt_status` (for the secondary index,
 * which has no such column, it reads the building generation's latest attempt of each pair, none
 * when no rebuild runs); the attempt-derived fields are read through the (cc_pair_id, id DESC) index
 * only for the rows of the requested pages.
 */
export async function listIndexingStatus({
  db,
  principal,
  request,
  sort = null,
  signal,
}: {
  db: DbOrTx;
  principal: Principal;
  request: Camel<IndexingStatusRequest>;
  /** The console's order; without it, the contract's (newest pair first, sources by name). */
  sort?: ConnectorSort | null;
  /** Aborts when the client goes away: the running statement is then cancelled. */
  signal?: AbortSignal;
}): Promise<Camel<ConnectorIndexingStatusResponse>> {
  const attemptSource = await attemptSourceFor(db, request);
  const attempts = attemptsOf(attemptSource);
  const rule = accessRuleOf(principal);

  const pairFilters: Prisma.Sql[] = [listedPairSql("p")];
  if (request.source !== null) pairFilters.push(Prisma.sql`c.source = ${request.source}::"DocumentSource"`);
  if (request.accessTypeFilters.length > 0) {
    pairFilters.push(Prisma.sql`p.access_type::text = ANY(${request.accessTypeFilters}::text[])`);
  }
  if (request.docsCountOperator !== null && request.docsCountValue !== null) {
    pairFilters.push(
      Prisma.sql`p.docs_indexed ${COMPARISONS[request.docsCountOperator]} ${request.docsCountValue}::bigint`,
    );
  }
  const nameFilter = request.nameFilter ? request.nameFilter : null;
  if (nameFilter !== null) pairFilters.push(Prisma.sql`strpos(lower(p.name), lower(${nameFilter})) > 0`);
  pairFilters.push(viewablePairSql(rule, "p"));

  // Pairs with no attempt have no status, so they never match. For the current attempts the latest
  // status is the pair's `last_attempt_status` (kept by syncLastAttemptStatus, cc-pair-rows.ts): a column predicate. The
  // building generation's attempts have no such column: its pairs' latest attempts are read in one
  // pass over `index_attempt (generation_id, cc_pair_id, id DESC)` and joined (a probe per pair
  // would cost 10,000 index look-ups).
  const statusOnPair = request.lastStatusFilters.length > 0 && attemptSource.kind === "current";
  if (statusOnPair) {
    pairFilters.push(Prisma.sql`p.last_attempt_status::text = ANY(${request.lastStatusFilters}::text[])`);
  }
  const statusJoin =
    request.lastStatusFilters.length > 0 && !statusOnPair
      ? Prisma.sql`
        JOIN (
          SELECT DISTINCT ON (ia.cc_pair_id) ia.cc_pair_id, ia.status FROM index_attempt ia
          WHERE ${attempts}
          ORDER BY ia.cc_pair_id, ia.id DESC
        ) latest ON latest.cc_pair_id = p.id AND latest.status::text = ANY(${request.lastStatusFilters}::text[])`
      : Prisma.empty;

  const editable = editablePairSql(rule, "p");
  const federatedNameFilter =
    nameFilter === null ? Prisma.empty : Prisma.sql`AND strpos(lower(f.display_name), lower(${nameFilter})) > 0`;
  const pageFilter = request.getAllConnectors
    ? Prisma.empty
    : Prisma.sql`
      WHERE r.position > (pg.page - 1) * ${INDEXING_STATUS_PAGE_SIZE}
        AND r.position <= pg.page * ${INDEXING_STATUS_PAGE_SIZE}`;

  const sortKey = sortKeySql(sort, attemptSource);
  const direction = Prisma.raw(sort?.direction === "desc" ? "DESC" : "ASC");
  const contractOrder = Prisma.sql`CASE WHEN a.kind = 0 THEN -a.id ELSE a.id END`;
  // Pairs without a value (never succeeded, no attempt) come last either way.
  const rowOrder = sortKey === null ? contractOrder : Prisma.sql`a.sort_key ${direction} NULLS LAST, ${contractOrder}`;
  // Failed documents are few (an index on the status): counted once per pair, and only for this sort.
  const failedJoin =
    sort?.column === "failed"
      ? Prisma.sql`
        LEFT JOIN (
          SELECT l.cc_pair_id, count(*) AS count
          FROM document d JOIN document_by_cc_pair l ON l.document_id = d.id
          WHERE ${failedDocumentSql("d")}
          GROUP BY l.cc_pair_id
        ) failed ON failed.cc_pair_id = p.id`
      : Prisma.empty;

  // The filters are the client's to shape (a name filter scans every pair's name): the statement
  // stops when the client leaves, besides the web process's statement timeout.
  const rows = await withCancelOnAbort(db, signal, (tag) => db.$queryRaw<ListingRow[]>`${tag}
    WITH pair_rows AS (
      SELECT p.id, c.source, p.name, p.access_type, p.status, p.docs_indexed, ${editable} AS is_editable,
        ${sortKey ?? Prisma.sql`NULL::int`} AS sort_key
      FROM connector_credential_pair p
      JOIN connector c ON c.id = p.connector_id
      ${statusJoin}
      ${failedJoin}
      WHERE ${Prisma.join(pairFilters, " AND ")}
    ), federated_rows AS (
      -- Federated connectors are filtered by name only, and listed under their plain source.
      SELECT f.id, substr(f.source, ${FEDERATED_PREFIX.length + 1})::"DocumentSource" AS source,
        f.source AS federated_source, f.display_name AS name
      FROM (
        SELECT fc.id, fc.source, COALESCE(fc.name, initcap(replace(fc.source, '_', ' '))) AS display_name
        FROM federated_connector fc
        WHERE starts_with(fc.source, ${FEDERATED_PREFIX})
          AND substr(fc.source, ${FEDERATED_PREFIX.length + 1}) = ANY(enum_range(NULL::"DocumentSource")::text[])
      ) f
      WHERE TRUE ${federatedNameFilter}
    ), all_rows AS (
      SELECT 0 AS kind, id, source, NULL::text AS federated_source, name, access_type, status, docs_indexed, is_editable, sort_key
      FROM pair_rows
      UNION ALL
      SELECT 1, id, source, federated_source, name, NULL, NULL, 0, FALSE, NULL
      FROM federated_rows
    ), ranked AS (
      SELECT a.*,
        row_number() OVER per_source AS position,
        count(*) OVER per_source AS total_connectors,
        count(*) FILTER (WHERE a.status = 'ACTIVE') OVER per_source AS active_connectors,
        count(*) FILTER (WHERE a.access_type = 'public') OVER per_source AS public_connectors,
        sum(a.docs_indexed) OVER per_source AS total_docs_indexed
      FROM all_rows a
      -- One window (one sort) for positions and totals: pairs by id descending (or the console's
      -- sort), then federated rows by id; the frame is the whole source so the aggregates are the
      -- source's totals.
      WINDOW per_source AS (
        PARTITION BY a.source ORDER BY a.kind, ${rowOrder}
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
    ), page_rows AS (
      SELECT r.* FROM ranked r
      CROSS JOIN LATERAL (
        SELECT COALESCE((${JSON.stringify(request.sourceToPage)}::jsonb ->> r.source::text)::bigint, 1) AS page
      ) pg
      ${pageFilter}
    )
    SELECT
      r.kind, r.id, r.source::text AS source, r.federated_source, r.name,
      r.access_type::text AS access_type, r.status::text AS status, r.docs_indexed, r.is_editable,
      r.total_connectors::int AS total_connectors, r.active_connectors::int AS active_connectors,
      r.public_connectors::int AS public_connectors, r.total_docs_indexed::bigint AS total_docs_indexed,
      latest.status::text AS last_status, latest.docs_indexed AS latest_docs_indexed,
      finished.status::text AS last_finished_status, ${lastSuccessSql((ia) => Prisma.sql`r.kind = 0 AND ${sqlAlias(ia)}.cc_pair_id = r.id AND ${attemptsOf(attemptSource, ia)}`)} AS last_success,
      repeated.in_repeated_error_state
    FROM page_rows r
    LEFT JOIN LATERAL (
      SELECT ia.status, ia.docs_indexed FROM index_attempt ia
      WHERE r.kind = 0 AND ia.cc_pair_id = r.id AND ${attempts}
      ORDER BY ia.id DESC LIMIT 1
    ) latest ON TRUE
    LEFT JOIN LATERAL (
      SELECT ia.status FROM index_attempt ia
      WHERE r.kind = 0 AND ia.cc_pair_id = r.id AND ${attempts}
        AND ia.status NOT IN ('not_started', 'in_progress')
      ORDER BY ia.id DESC LIMIT 1
    ) finished ON TRUE
    LEFT JOIN LATERAL (
      SELECT ${repeatedErrorStateSql((ia) => Prisma.sql`r.kind = 0 AND ${sqlAlias(ia)}.cc_pair_id = r.id AND ${attemptsOf(attemptSource, ia)}`)}
        AS in_repeated_error_state
    ) repeated ON TRUE
    ORDER BY r.source::text COLLATE "C" ${sort?.column === "source" ? direction : Prisma.empty}, r.position`);

  return groupBySource(rows, request, principal);
}

/** Rows arrive ordered by source, then position: one group per run of a source. */
function groupBySource(rows: ListingRow[], request: Camel<IndexingStatusRequest>, principal: Principal): Camel<ConnectorIndexingStatusResponse> {
  const groups: Camel<ConnectorIndexingStatusResponse> = [];
  let group: Camel<ConnectorIndexingStatusGroup> | undefined;
  for (const row of rows) {
    if (group?.source !== row.source) {
      group = {
        source: row.source,
        summary: {
          totalConnectors: row.total_connectors,
          activeConnectors: row.active_connectors,
          publicConnectors: row.public_connectors,
          totalDocsIndexed: Number(row.total_docs_indexed),
        },
        currentPage: request.sourceToPage[row.source] ?? 1,
        totalPages: Math.ceil(row.total_connectors / INDEXING_STATUS_PAGE_SIZE),
        indexingStatuses: [],
      };
      groups.push(group);
    }
    group.indexingStatuses.push(row.kind === 0 ? toPairStatus(row, principal) : toFederatedStatus(row));
  }
  return groups;
}

function toPairStatus(row: ListingRow, principal: Principal): Camel<ConnectorIndexingStatusLite> {
  if (row.access_type === null || row.status === null) throw new Error(`pair ${row.id} came back without its pair fields`);
  return {
    ccPairId: row.id,
    name: row.name,
    source: row.source,
    accessType: row.access_type,
    ccPairStatus: row.status,
    inProgress: row.last_status === "in_progress",
    inRepeatedErrorState: row.in_repeated_error_state === true,
    lastFinishedStatus: row.last_finished_status,
    lastStatus: row.last_status,
    lastSuccess: row.last_success?.toISOString() ?? null,
    isEditable: row.is_editable,
    permissions: pairPermissions(principal, { id: row.id, status: row.status, isEditable: row.is_editable }),
    docsIndexed: row.docs_indexed,
    latestIndexAttemptDocsIndexed: row.latest_docs_indexed,
  };
}

function toFederatedStatus(row: ListingRow): Camel<FederatedConnectorStatus> {
  // Rows come from federated_connector, whose sources are written only through FederatedConnectorSourceSchema.
  const source = (row.federated_source ?? `${FEDERATED_PREFIX}${row.source}`) as FederatedConnectorSource;
  return { id: row.id, source, name: row.name };
}
