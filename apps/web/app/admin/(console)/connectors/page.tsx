"use client";
import {
  Anchor,
  Badge,
  Button,
  Group,
  Input,
  Loader,
  MultiSelect,
  NumberInput,
  Pagination,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedCallback, useDisclosure } from "@mantine/hooks";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  AccessTypeSchema,
  ConnectorSortColumnSchema,
  DOCUMENT_SOURCES,
  DocsCountOperatorSchema,
  IndexingStatusSchema,
  type Camel,
  type ConnectorIndexingStatusGroup as WireGroup,
  type ConnectorIndexingStatusLite as WirePairRow,
  type ConnectorSort,
  type ConnectorSortColumn,
  type DocumentSource,
  type FederatedConnectorStatus as WireFederatedRow,
  type IndexingStatusRequest,
} from "@svc/schema";
import { isUnscopedAdmin } from "@svc/core/access-policy";
import Link from "next/link";
import { Suspense, useMemo, useState } from "react";
import { useConsoleUser } from "../../../../components/admin-shell";
import { ConfirmAction } from "../../../../components/confirm-action";
import { RelativeTime } from "../../../../components/data-table";
import { formatCount, formatDateTime, plural, sourceLabel } from "../../../../components/format";
import { EmptyState, Loading, PageHeader, QueryError, Stat } from "../../../../components/page-parts";
import { ATTEMPT_STATUS_LABELS, AttemptStatusBadge, PairStatusBadge, RepeatedErrorsBadge } from "../../../../components/status-badge";
import { ariaSort, SortHeader, sortFromParam, sortParam, type SortableColumns } from "../../../../components/sort-header";
import { listParam, useUrlState } from "../../../../components/use-url-state";
import { useTRPC } from "../../../../lib/trpc/client";

/** How often the listing refreshes itself while the page is open. */
const REFRESH_MS = 3_000;

const ACCESS_TYPES = AccessTypeSchema.options;
const LAST_STATUSES = IndexingStatusSchema.options;
const OPERATORS = DocsCountOperatorSchema.options;
const OPERATOR_LABELS: Record<(typeof OPERATORS)[number], string> = { ">": "more than", "<": "fewer than", "=": "exactly" };

export default function ConnectorsPage() {
  return (
    <Suspense fallback={<Loading />}>
      <ConnectorsListing />
    </Suspense>
  );
}

/** The URL's search params as the REST IndexingStatusRequest, in camelCase; unknown values are dropped. */
function requestFromParams(params: { get(key: string): string | null; keys(): IterableIterator<string> }): Camel<IndexingStatusRequest> {
  const source = params.get("source");
  const operator = params.get("op");
  const count = params.get("count");
  const countValue = count !== null && /^\d+$/.test(count) ? Number(count) : null;
  const sourceToPage: Partial<Record<DocumentSource, number>> = {};
  for (const key of params.keys()) {
    const pageSource = key.slice("page.".length);
    const page = Number(params.get(key));
    if (key.startsWith("page.") && (DOCUMENT_SOURCES as readonly string[]).includes(pageSource) && Number.isInteger(page) && page > 1) {
      sourceToPage[pageSource as DocumentSource] = page;
    }
  }
  const validOperator = OPERATORS.find((candidate) => candidate === operator) ?? null;
  return {
    secondaryIndex: params.get("secondary") === "1",
    source: DOCUMENT_SOURCES.find((candidate) => candidate === source) ?? null,
    accessTypeFilters: listParam(params, "access", ACCESS_TYPES),
    lastStatusFilters: listParam(params, "status", LAST_STATUSES),
    // The comparison needs both halves; half a filter filters nothing.
    docsCountOperator: validOperator !== null && countValue !== null ? validOperator : null,
    docsCountValue: validOperator !== null && countValue !== null ? countValue : null,
    nameFilter: params.get("name") || null,
    sourceToPage,
    getAllConnectors: params.get("all") === "1",
  };
}

function ConnectorsListing() {
  const trpc = useTRPC();
  const { params, update } = useUrlState();
  const request = useMemo(() => requestFromParams(params), [params]);
  const sort = useMemo(() => sortFromParam(params.get("sort"), ConnectorSortColumnSchema.options), [params]);
  const live = params.get("live") !== "0";
  const listing = useQuery(
    trpc.connectors.indexingStatus.queryOptions({ ...request, sort }, {
      refetchInterval: live ? REFRESH_MS : false,
      // Keep the rows on screen while a new filter or page loads.
      placeholderData: keepPreviousData,
    }),
  );
  const pairIds = useMemo(
    () => (listing.data ?? []).flatMap((group) => group.indexingStatuses.filter(isPair).map((row) => row.ccPairId)),
    [listing.data],
  );
  const failedCounts = useQuery(
    trpc.connectors.failedDocumentCounts.queryOptions({ ccPairIds: pairIds }, { refetchInterval: live ? REFRESH_MS : false, placeholderData: keepPreviousData }),
  );
  const failed = useMemo(() => new Map(failedCounts.data?.byPair.map((row) => [row.ccPairId, row.failed])), [failedCounts.data]);
  const activeFilters = [
    request.source !== null,
    request.accessTypeFilters.length > 0,
    request.lastStatusFilters.length > 0,
    request.docsCountOperator !== null,
    request.getAllConnectors,
    request.nameFilter !== null,
    request.secondaryIndex,
  ].filter(Boolean).length;
  const filtered = activeFilters > 0;
  // On a phone the filters wait behind a button, so the table is on the first screen; wider, they are always shown.
  const [filtersOpen, { toggle: toggleFilters }] = useDisclosure(false);

  return (
    <>
      <PageHeader
        title="Connectors"
        description="Connector-credential pairs by source, with the state of their indexing."
        actions={
          <>
            <RefreshIndicator live={live} updatedAt={listing.dataUpdatedAt} fetching={listing.isFetching} />
            <Switch
              label="Auto-refresh"
              checked={live}
              onChange={(event) => update({ live: event.currentTarget.checked ? null : "0" })}
            />
            <Button
              hiddenFrom="sm"
              variant="default"
              onClick={toggleFilters}
              aria-expanded={filtersOpen}
              aria-controls="connector-filters"
              rightSection={activeFilters ? <Badge size="sm" circle>{activeFilters}</Badge> : undefined}
            >
              {filtersOpen ? "Hide filters" : "Filters"}
            </Button>
            <Button component={Link} href="/admin/connectors/new">
              New connector
            </Button>
          </>
        }
      />
      <Filters
        open={filtersOpen}
        request={request}
        operator={OPERATORS.find((candidate) => candidate === params.get("op")) ?? null}
        update={update}
        filtered={filtered}
      />
      {listing.error && !listing.data ? (
        <QueryError error={listing.error} onRetry={() => void listing.refetch()} title="Could not load the connectors" />
      ) : !listing.data ? (
        <Loading label="Loading connectors…" />
      ) : (
        <Stack gap="lg">
          {listing.error ? <QueryError error={listing.error} title="Refreshing failed; showing the last answer" /> : null}
          <Totals groups={listing.data} failed={failed} failedTotal={failedCounts.data?.total ?? null} />
          {listing.data.length === 0 ? (
            filtered ? (
              <EmptyState
                title="No connectors match these filters"
                action={
                  <Button variant="light" onClick={() => update(CLEARED_FILTERS, { resetPages: true })}>
                    Clear filters
                  </Button>
                }
              />
            ) : (
              <EmptyState
                title="No connectors yet"
                action={
                  <Button component={Link} href="/admin/connectors/new">
                    Create a connector
                  </Button>
                }
              >
                Documents ingested with a <code>cc_pair_id</code> are counted under their pair here.
              </EmptyState>
            )
          ) : (
            <ConnectorsTable
              groups={listing.data}
              failed={failed}
              showAll={request.getAllConnectors}
              sort={sort}
              onSort={(next) => update({ sort: sortParam(next) }, { resetPages: true })}
              onPage={(source, page) => update({ [`page.${source}`]: page > 1 ? String(page) : null })}
            />
          )}
        </Stack>
      )}
    </>
  );
}

const CLEARED_FILTERS = { source: null, access: null, status: null, op: null, count: null, name: null, secondary: null, all: null };

function RefreshIndicator({ live, updatedAt, fetching }: { live: boolean; updatedAt: number; fetching: boolean }) {
  return (
    <Group gap={6} aria-live="off">
      {fetching ? <Loader size={12} aria-label="Refreshing" /> : null}
      <Text size="xs" c="dimmed">
        {updatedAt ? `Updated ${formatDateTime(new Date(updatedAt)).split(", ").at(-1)}` : ""}
        {live ? ` · every ${REFRESH_MS / 1000} s` : " · paused"}
      </Text>
    </Group>
  );
}

type Update = ReturnType<typeof useUrlState>["update"];

function Filters({
  open,
  request,
  operator,
  update,
  filtered,
}: {
  /** Whether a phone shows them (its toggle is the "Filters" button); wider screens always do. */
  open: boolean;
  request: Camel<IndexingStatusRequest>;
  /** As chosen, even before a count is typed (the request leaves a half comparison out). */
  operator: string | null;
  update: Update;
  filtered: boolean;
}) {
  const [name, setName] = useState(request.nameFilter ?? "");
  const [count, setCount] = useState<string | number>(request.docsCountValue ?? "");
  const applyName = useDebouncedCallback((value: string) => update({ name: value.trim() || null }, { resetPages: true }), 300);
  const applyCount = useDebouncedCallback(
    (value: string | number) => update({ count: value === "" ? null : String(value) }, { resetPages: true }),
    300,
  );
  const set = (changes: Record<string, string | null>) => update(changes, { resetPages: true });

  return (
    <Paper withBorder p="md" radius="md" mb="lg" component="section" aria-label="Filters" id="connector-filters" className={open ? undefined : "svc-filters-closed"}>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="md">
        <TextInput
          label="Name contains"
          placeholder="Any name"
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value);
            applyName(event.currentTarget.value);
          }}
        />
        <Select
          label="Source"
          placeholder="All sources"
          data={DOCUMENT_SOURCES.map((source) => ({ value: source, label: sourceLabel(source) }))}
          value={request.source}
          onChange={(value) => set({ source: value })}
          searchable
          clearable
        />
        <MultiSelect
          label="Access type"
          placeholder={request.accessTypeFilters.length ? undefined : "Any access"}
          data={ACCESS_TYPES.map((value) => ({ value, label: value }))}
          value={request.accessTypeFilters}
          onChange={(values) => set({ access: values.join(",") || null })}
          clearable
        />
        <MultiSelect
          label="Last attempt"
          placeholder={request.lastStatusFilters.length ? undefined : "Any status"}
          data={LAST_STATUSES.map((value) => ({ value, label: ATTEMPT_STATUS_LABELS[value] }))}
          value={request.lastStatusFilters}
          onChange={(values) => set({ status: values.join(",") || null })}
          clearable
        />
        <Input.Wrapper label="Documents indexed" labelElement="div">
          <Group grow gap="xs" wrap="nowrap">
            <Select
              aria-label="Documents indexed comparison"
              placeholder="Any"
              data={OPERATORS.map((value) => ({ value, label: OPERATOR_LABELS[value] }))}
              value={operator}
              onChange={(value) => set({ op: value })}
              clearable
            />
            <NumberInput
              aria-label="Documents indexed value"
              placeholder="Count"
              min={0}
              allowDecimal={false}
              allowNegative={false}
              value={count}
              onChange={(value) => {
                setCount(value);
                applyCount(value);
              }}
            />
          </Group>
        </Input.Wrapper>
        <Stack gap={6} justify="flex-end">
          <Switch
            label="Secondary index"
            description="The index being rebuilt"
            checked={request.secondaryIndex}
            onChange={(event) => set({ secondary: event.currentTarget.checked ? "1" : null })}
          />
          <Switch
            label="All rows on one page"
            checked={request.getAllConnectors}
            onChange={(event) => set({ all: event.currentTarget.checked ? "1" : null })}
          />
        </Stack>
        {filtered ? (
          <Group align="flex-end">
            <Button
              variant="subtle"
              onClick={() => {
                setName("");
                setCount("");
                update(CLEARED_FILTERS, { resetPages: true });
              }}
            >
              Clear filters
            </Button>
          </Group>
        ) : null}
      </SimpleGrid>
    </Paper>
  );
}

function Totals({ groups, failed, failedTotal }: { groups: ConnectorIndexingStatusGroup[]; failed: FailedByPair; failedTotal: number | null }) {
  const total = groups.reduce((sum, group) => sum + group.summary.totalConnectors, 0);
  const active = groups.reduce((sum, group) => sum + group.summary.activeConnectors, 0);
  const docs = groups.reduce((sum, group) => sum + group.summary.totalDocsIndexed, 0);
  const shown = groups.flatMap((group) => group.indexingStatuses).filter(isPair);
  const inProgress = shown.filter((row) => row.inProgress).length;
  const failing = shown.filter((row) => hasErrors(row, failed)).length;
  return (
    <SimpleGrid cols={{ base: 2, md: 6 }} spacing="md">
      <Stat label="Connectors" value={formatCount(total)} hint={plural(groups.length, "source")} />
      <Stat label="Active" value={formatCount(active)} color="green" />
      <Stat label="Documents indexed" value={formatCount(docs)} />
      <Stat
        label="Indexing now"
        value={<span data-testid="pairs-indexing">{formatCount(inProgress)}</span>}
        color={inProgress ? "blue" : undefined}
        hint="on the pages shown, as on Indexing health"
      />
      <Stat label="With errors" value={formatCount(failing)} color={failing ? "red" : undefined} hint="on the pages shown" />
      <Stat
        label="Failed documents"
        value={<span data-testid="failed-documents-total">{failedTotal === null ? "…" : formatCount(failedTotal)}</span>}
        color={failedTotal ? "red" : undefined}
        hint="in all pairs, as on Indexing health"
      />
    </SimpleGrid>
  );
}

function isPair(row: ConnectorIndexingStatusLite | FederatedConnectorStatus): row is ConnectorIndexingStatusLite {
  return "ccPairId" in row;
}

/** Failed documents per pair id (pairs without any are absent). */
type FailedByPair = Map<number, number>;
type ConnectorIndexingStatusGroup = Camel<WireGroup>;
type ConnectorIndexingStatusLite = Camel<WirePairRow>;
type FederatedConnectorStatus = Camel<WireFederatedRow>;

/** A pair is in error while any of its documents is failed, not only while its last attempt is. */
function hasErrors(row: ConnectorIndexingStatusLite, failed: FailedByPair): boolean {
  return row.inRepeatedErrorState || row.lastStatus === "failed" || row.ccPairStatus === "INVALID" || (failed.get(row.ccPairId) ?? 0) > 0;
}

/** Each column's sort, and where a first click starts: names A→Z, counts and times largest or newest first. */
const SORTABLE: SortableColumns<ConnectorSortColumn> = {
  source: { label: "Source", firstDirection: "asc" },
  name: { label: "Name", firstDirection: "asc" },
  status: { label: "Status", firstDirection: "asc" },
  last_status: { label: "Last attempt", firstDirection: "asc" },
  last_success: { label: "Last success", firstDirection: "desc" },
  docs_indexed: { label: "Documents", firstDirection: "desc" },
  failed: { label: "Failed", firstDirection: "desc" },
};

const COLUMN_COUNT = 7;

/**
 * One table for every source, so the columns line up down the page: each source is a group of rows
 * under a header row with its totals and its own pages (the listing pages per source).
 */
function ConnectorsTable({
  groups,
  failed,
  showAll,
  sort,
  onSort,
  onPage,
}: {
  groups: ConnectorIndexingStatusGroup[];
  failed: FailedByPair;
  showAll: boolean;
  sort: ConnectorSort | null;
  onSort: (sort: ConnectorSort) => void;
  onPage: (source: DocumentSource, page: number) => void;
}) {
  const header = (column: ConnectorSortColumn) => <SortHeader column={column} columns={SORTABLE} sort={sort} onSort={onSort} />;
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing={6} horizontalSpacing="xs" highlightOnHover aria-label="Connectors">
          <Table.Thead>
            <Table.Tr>
              <Table.Th aria-sort={ariaSort(sort, "source") ?? ariaSort(sort, "name")}>
                <Group gap={4} wrap="nowrap">
                  {header("source")}
                  <Text span c="dimmed" aria-hidden>
                    /
                  </Text>
                  {header("name")}
                </Group>
              </Table.Th>
              <Table.Th aria-sort={ariaSort(sort, "status")}>{header("status")}</Table.Th>
              <Table.Th aria-sort={ariaSort(sort, "last_status")}>{header("last_status")}</Table.Th>
              <Table.Th aria-sort={ariaSort(sort, "last_success")}>{header("last_success")}</Table.Th>
              <Table.Th ta="right" aria-sort={ariaSort(sort, "docs_indexed")}>
                {header("docs_indexed")}
              </Table.Th>
              <Table.Th ta="right" aria-sort={ariaSort(sort, "failed")}>
                {header("failed")}
              </Table.Th>
              <Table.Th ta="right">Latest attempt</Table.Th>
            </Table.Tr>
          </Table.Thead>
          {groups.map((group) => (
            <SourceRows key={group.source} group={group} failed={failed} showAll={showAll} onPage={(page) => onPage(group.source, page)} />
          ))}
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function SourceRows({
  group,
  failed,
  showAll,
  onPage,
}: {
  group: ConnectorIndexingStatusGroup;
  failed: FailedByPair;
  showAll: boolean;
  onPage: (page: number) => void;
}) {
  const { summary } = group;
  const headingId = `source-${group.source}`;
  return (
    <Table.Tbody aria-labelledby={headingId} data-source={group.source}>
      <Table.Tr bg="var(--mantine-color-default-hover)">
        <Table.Th colSpan={COLUMN_COUNT} scope="colgroup" fw="normal">
          {/* Held at the visible left edge and as wide as a phone's screen while the table scrolls sideways. */}
          <Group justify="space-between" gap="xs" wrap="wrap" pos="sticky" left="var(--mantine-spacing-xs)" maw="calc(100vw - 5rem)">
            <Group gap="xs" wrap="wrap">
              <Title order={2} size="h5" id={headingId}>
                {sourceLabel(group.source)}
              </Title>
              <Text size="xs" c="dimmed" data-testid={`summary-${group.source}`}>
                {plural(summary.totalConnectors, "connector")} · {formatCount(summary.activeConnectors)} active ·{" "}
                {formatCount(summary.publicConnectors)} public · {plural(summary.totalDocsIndexed, "document")} indexed
              </Text>
            </Group>
            {!showAll && group.totalPages > 1 ? (
              <Group gap="xs" wrap="wrap">
                <Text size="xs" c="dimmed">
                  Page {group.currentPage} of {group.totalPages}
                </Text>
                <Pagination
                  size="xs"
                  total={group.totalPages}
                  value={group.currentPage}
                  onChange={onPage}
                  aria-label={`${sourceLabel(group.source)} pages`}
                  getControlProps={(control) => ({ "aria-label": `${control} page` })}
                  getItemProps={(page) => ({ "aria-label": `Page ${page}` })}
                />
              </Group>
            ) : null}
          </Group>
        </Table.Th>
      </Table.Tr>
      {group.indexingStatuses.map((row) =>
        isPair(row) ? <PairRow key={`pair-${row.ccPairId}`} row={row} failed={failed} /> : <FederatedRow key={`federated-${row.id}`} row={row} />,
      )}
    </Table.Tbody>
  );
}

function PairRow({ row, failed }: { row: ConnectorIndexingStatusLite; failed: FailedByPair }) {
  const errors = hasErrors(row, failed);
  const failedDocuments = failed.get(row.ccPairId) ?? 0;
  return (
    <Table.Tr
      bg={errors ? "var(--mantine-color-red-light)" : row.inProgress ? "var(--mantine-color-blue-light)" : undefined}
      data-cc-pair-id={row.ccPairId}
    >
      <Table.Td>
        <Anchor component={Link} href={`/admin/connectors/${row.ccPairId}`} fw={600} size="sm">
          {row.name}
        </Anchor>
        <Text size="xs" c="dimmed" data-testid="pair-access">
          #{row.ccPairId} · {row.accessType}
          {row.isEditable ? "" : " · read-only"}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4}>
          <PairStatusBadge status={row.ccPairStatus} />
          {row.inProgress ? (
            <Badge color="blue" variant="filled" leftSection={<Loader size={10} color="white" aria-hidden />}>
              Indexing
            </Badge>
          ) : null}
          {row.inRepeatedErrorState ? <RepeatedErrorsBadge /> : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <AttemptStatusBadge status={row.lastStatus} />
      </Table.Td>
      <Table.Td style={{ whiteSpace: "nowrap" }}>
        <RelativeTime value={row.lastSuccess} />
      </Table.Td>
      <Table.Td ta="right" ff="monospace" data-testid="docs-indexed" title={plural(row.docsIndexed, "document")}>
        {formatCount(row.docsIndexed)}
      </Table.Td>
      <Table.Td
        ta="right"
        ff="monospace"
        c={failedDocuments > 0 ? "red" : "dimmed"}
        fw={failedDocuments > 0 ? 700 : undefined}
        data-testid="pair-failed-documents"
        title={plural(failedDocuments, "failed document")}
      >
        {formatCount(failedDocuments)}
      </Table.Td>
      <Table.Td ta="right" ff="monospace">
        {row.latestIndexAttemptDocsIndexed === null ? "—" : formatCount(row.latestIndexAttemptDocsIndexed)}
      </Table.Td>
    </Table.Tr>
  );
}

function FederatedRow({ row }: { row: FederatedConnectorStatus }) {
  const trpc = useTRPC();
  const user = useConsoleUser();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.connectors.deleteFederated.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.connectors.indexingStatus.queryFilter()),
    }),
  );
  return (
    <Table.Tr>
      <Table.Td>
        <Text fw={600} size="sm">
          {row.name}
        </Text>
        <Text size="xs" c="dimmed">
          federated #{row.id}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge color="violet" variant="light">
          Federated
        </Badge>
      </Table.Td>
      <Table.Td colSpan={COLUMN_COUNT - 3}>
        <Text size="sm" c="dimmed">
          Searched live at query time; indexes nothing.
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        {/* A federated connector belongs to no pair: only an unscoped admin changes it. */}
        {isUnscopedAdmin(user) ? (
          <ConfirmAction
            label="Remove"
            title={`Remove ${row.name}?`}
            confirmLabel="Remove"
            buttonProps={{ size: "xs", "aria-label": `Remove ${row.name}` }}
            onConfirm={() => remove.mutateAsync({ id: row.id })}
          >
            The federated connector stops being searched. Nothing indexed is affected.
          </ConfirmAction>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}
