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
import { useDebouncedCallback } from "@mantine/hooks";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  AccessTypeSchema,
  DOCUMENT_SOURCES,
  DocsCountOperatorSchema,
  IndexingStatusSchema,
  type ConnectorIndexingStatusGroup,
  type ConnectorIndexingStatusLite,
  type DocumentSource,
  type FederatedConnectorStatus,
  type IndexingStatusRequest,
} from "@svc/schema";
import Link from "next/link";
import { Suspense, useMemo, useState } from "react";
import { useConsoleUser } from "../../../../components/admin-shell";
import { ConfirmAction } from "../../../../components/confirm-action";
import { DataTable, RelativeTime } from "../../../../components/data-table";
import { formatCount, formatDateTime, sourceLabel } from "../../../../components/format";
import { EmptyState, Loading, PageHeader, QueryError, Stat } from "../../../../components/page-parts";
import { ATTEMPT_STATUS_LABELS, AttemptStatusBadge, PairStatusBadge, RepeatedErrorsBadge } from "../../../../components/status-badge";
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

/** The URL's search params as the REST IndexingStatusRequest; unknown values are dropped. */
function requestFromParams(params: { get(key: string): string | null; keys(): IterableIterator<string> }): IndexingStatusRequest {
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
    secondary_index: params.get("secondary") === "1",
    source: DOCUMENT_SOURCES.find((candidate) => candidate === source) ?? null,
    access_type_filters: listParam(params, "access", ACCESS_TYPES),
    last_status_filters: listParam(params, "status", LAST_STATUSES),
    // The comparison needs both halves; half a filter filters nothing.
    docs_count_operator: validOperator !== null && countValue !== null ? validOperator : null,
    docs_count_value: validOperator !== null && countValue !== null ? countValue : null,
    name_filter: params.get("name") || null,
    source_to_page: sourceToPage,
    get_all_connectors: params.get("all") === "1",
  };
}

function ConnectorsListing() {
  const trpc = useTRPC();
  const { params, update } = useUrlState();
  const request = useMemo(() => requestFromParams(params), [params]);
  const live = params.get("live") !== "0";
  const listing = useQuery(
    trpc.connectors.indexingStatus.queryOptions(request, {
      refetchInterval: live ? REFRESH_MS : false,
      // Keep the rows on screen while a new filter or page loads.
      placeholderData: keepPreviousData,
    }),
  );
  const pairIds = useMemo(
    () => (listing.data ?? []).flatMap((group) => group.indexing_statuses.filter(isPair).map((row) => row.cc_pair_id)),
    [listing.data],
  );
  const failedCounts = useQuery(
    trpc.connectors.failedDocumentCounts.queryOptions({ ccPairIds: pairIds }, { refetchInterval: live ? REFRESH_MS : false, placeholderData: keepPreviousData }),
  );
  const failed = useMemo(() => new Map(failedCounts.data?.byPair.map((row) => [row.ccPairId, row.failed])), [failedCounts.data]);
  const filtered =
    request.source !== null ||
    request.access_type_filters.length > 0 ||
    request.last_status_filters.length > 0 ||
    request.docs_count_operator !== null ||
    request.get_all_connectors ||
    request.name_filter !== null ||
    request.secondary_index;

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
            <Button component={Link} href="/admin/connectors/new">
              New connector
            </Button>
          </>
        }
      />
      <Filters
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
            listing.data.map((group) => (
              <SourceGroup
                key={group.source}
                group={group}
                failed={failed}
                showAll={request.get_all_connectors}
                onPage={(page) => update({ [`page.${group.source}`]: page > 1 ? String(page) : null })}
              />
            ))
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
  request,
  operator,
  update,
  filtered,
}: {
  request: IndexingStatusRequest;
  /** As chosen, even before a count is typed (the request leaves a half comparison out). */
  operator: string | null;
  update: Update;
  filtered: boolean;
}) {
  const [name, setName] = useState(request.name_filter ?? "");
  const [count, setCount] = useState<string | number>(request.docs_count_value ?? "");
  const applyName = useDebouncedCallback((value: string) => update({ name: value.trim() || null }, { resetPages: true }), 300);
  const applyCount = useDebouncedCallback(
    (value: string | number) => update({ count: value === "" ? null : String(value) }, { resetPages: true }),
    300,
  );
  const set = (changes: Record<string, string | null>) => update(changes, { resetPages: true });

  return (
    <Paper withBorder p="md" radius="md" mb="lg" component="section" aria-label="Filters">
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
          placeholder={request.access_type_filters.length ? undefined : "Any access"}
          data={ACCESS_TYPES.map((value) => ({ value, label: value }))}
          value={request.access_type_filters}
          onChange={(values) => set({ access: values.join(",") || null })}
          clearable
        />
        <MultiSelect
          label="Last attempt"
          placeholder={request.last_status_filters.length ? undefined : "Any status"}
          data={LAST_STATUSES.map((value) => ({ value, label: ATTEMPT_STATUS_LABELS[value] }))}
          value={request.last_status_filters}
          onChange={(values) => set({ status: values.join(",") || null })}
          clearable
        />
        <Input.Wrapper label="Documents indexed" labelElement="div">
          <Group grow gap="xs" wrap="nowrap">
            <Select
              aria-label="Documents indexed comparison"
              placeholder="Any count"
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
            checked={request.secondary_index}
            onChange={(event) => set({ secondary: event.currentTarget.checked ? "1" : null })}
          />
          <Switch
            label="All rows on one page"
            checked={request.get_all_connectors}
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
  const total = groups.reduce((sum, group) => sum + group.summary.total_connectors, 0);
  const active = groups.reduce((sum, group) => sum + group.summary.active_connectors, 0);
  const docs = groups.reduce((sum, group) => sum + group.summary.total_docs_indexed, 0);
  const shown = groups.flatMap((group) => group.indexing_statuses).filter(isPair);
  const inProgress = shown.filter((row) => row.in_progress).length;
  const failing = shown.filter((row) => hasErrors(row, failed)).length;
  return (
    <SimpleGrid cols={{ base: 2, md: 6 }} spacing="md">
      <Stat label="Connectors" value={formatCount(total)} hint={`${groups.length} ${groups.length === 1 ? "source" : "sources"}`} />
      <Stat label="Active" value={formatCount(active)} color="green" />
      <Stat label="Documents indexed" value={formatCount(docs)} />
      <Stat label="Indexing now" value={formatCount(inProgress)} color={inProgress ? "blue" : undefined} hint="on the pages shown" />
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
  return "cc_pair_id" in row;
}

/** Failed documents per pair id (pairs without any are absent). */
type FailedByPair = Map<number, number>;

/** A pair is in error while any of its documents is failed, not only while its last attempt is. */
function hasErrors(row: ConnectorIndexingStatusLite, failed: FailedByPair): boolean {
  return row.in_repeated_error_state || row.last_status === "failed" || row.cc_pair_status === "INVALID" || (failed.get(row.cc_pair_id) ?? 0) > 0;
}

function SourceGroup({
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
    <Paper withBorder radius="md" component="section" aria-labelledby={headingId} data-source={group.source}>
      <Group justify="space-between" p="md" pb="xs" wrap="wrap">
        <Group gap="sm">
          <Title order={2} size="h4" id={headingId}>
            {sourceLabel(group.source)}
          </Title>
          <Badge variant="default">{formatCount(summary.total_connectors)}</Badge>
        </Group>
        <Text size="sm" c="dimmed" data-testid={`summary-${group.source}`}>
          {formatCount(summary.total_connectors)} connectors · {formatCount(summary.active_connectors)} active ·{" "}
          {formatCount(summary.public_connectors)} public · {formatCount(summary.total_docs_indexed)} documents indexed
        </Text>
      </Group>
      <DataTable
        label={`${sourceLabel(group.source)} connectors`}
        minWidth={820}
        columns={["Name", "Status", "Last attempt", "Last success", "Access", { label: "Documents", align: "right" }, { label: "Latest attempt", align: "right" }]}
      >
            {group.indexing_statuses.map((row) =>
              isPair(row) ? <PairRow key={`pair-${row.cc_pair_id}`} row={row} failed={failed} /> : <FederatedRow key={`federated-${row.id}`} row={row} />,
            )}
      </DataTable>
      {!showAll && group.total_pages > 1 ? (
        <Group justify="space-between" p="sm" px="md">
          <Text size="xs" c="dimmed">
            Page {group.current_page} of {group.total_pages}
          </Text>
          <Pagination
            size="sm"
            total={group.total_pages}
            value={group.current_page}
            onChange={onPage}
            aria-label={`${sourceLabel(group.source)} pages`}
            getControlProps={(control) => ({ "aria-label": `${control} page` })}
            getItemProps={(page) => ({ "aria-label": `Page ${page}` })}
          />
        </Group>
      ) : null}
    </Paper>
  );
}

function PairRow({ row, failed }: { row: ConnectorIndexingStatusLite; failed: FailedByPair }) {
  const errors = hasErrors(row, failed);
  const failedDocuments = failed.get(row.cc_pair_id) ?? 0;
  return (
    <Table.Tr
      bg={errors ? "var(--mantine-color-red-light)" : row.in_progress ? "var(--mantine-color-blue-light)" : undefined}
      data-cc-pair-id={row.cc_pair_id}
    >
      <Table.Td>
        <Anchor component={Link} href={`/admin/connectors/${row.cc_pair_id}`} fw={600}>
          {row.name}
        </Anchor>
        <Text size="xs" c="dimmed">
          #{row.cc_pair_id}
          {row.is_editable ? "" : " · read-only"}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4}>
          <PairStatusBadge status={row.cc_pair_status} />
          {row.in_progress ? (
            <Badge color="blue" variant="filled" leftSection={<Loader size={10} color="white" aria-hidden />}>
              Indexing
            </Badge>
          ) : null}
          {row.in_repeated_error_state ? (
            <RepeatedErrorsBadge />
          ) : null}
          {failedDocuments > 0 ? (
            <Badge color="red" variant="light" data-testid="pair-failed-documents">
              {formatCount(failedDocuments)} failed {failedDocuments === 1 ? "document" : "documents"}
            </Badge>
          ) : null}
        </Group>
      </Table.Td>
      <Table.Td>
        <AttemptStatusBadge status={row.last_status} />
      </Table.Td>
      <Table.Td>
        <RelativeTime value={row.last_success} />
      </Table.Td>
      <Table.Td>
        <Badge variant="outline" color={row.access_type === "public" ? "teal" : "gray"}>
          {row.access_type}
        </Badge>
      </Table.Td>
      <Table.Td ta="right" ff="monospace" data-testid="docs-indexed">
        {formatCount(row.docs_indexed)}
      </Table.Td>
      <Table.Td ta="right" ff="monospace">
        {row.latest_index_attempt_docs_indexed === null ? "—" : formatCount(row.latest_index_attempt_docs_indexed)}
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
      <Table.Td colSpan={4}>
        <Text size="sm" c="dimmed">
          Searched live at query time; indexes nothing.
        </Text>
      </Table.Td>
      <Table.Td ta="right">
        {user.role === "admin" ? (
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
