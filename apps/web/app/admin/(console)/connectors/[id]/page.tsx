"use client";
import { BarChart } from "@mantine/charts";
import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Spoiler,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useDebouncedCallback, useDisclosure } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  MAX_PAIR_DOCUMENT_QUERY_LENGTH,
  PairDocumentFilterSchema,
  PairDocumentSortColumnSchema,
  type Camel,
  type CcPair,
  type PairDocumentSortColumn,
  type PairIndexingSummary,
} from "@svc/schema";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { canEditPair, useConsoleUser } from "../../../../../components/admin-shell";
import { DocumentName, FailureReason } from "../../../../../components/document-cells";
import { RetryDocumentButton } from "../../../../../components/retry-document-button";
import { ConfirmAction, DialogButtons, useAsyncAction } from "../../../../../components/confirm-action";
import { DataTable, RelativeTime } from "../../../../../components/data-table";
import {
  formatCount,
  formatDateTime,
  formatDuration,
  formatRelative,
  plural,
  sourceLabel,
} from "../../../../../components/format";
import { EmptyState, ErrorAlert, Loading, PageHeader, QueryError, Stat } from "../../../../../components/page-parts";
import { AttemptStatusBadge, DocumentStatusBadge, PairStatusBadge, RepeatedErrorsBadge } from "../../../../../components/status-badge";
import { useTRPC } from "../../../../../lib/trpc/client";
import type { RouterOutputs } from "../../../../../lib/trpc/types";
import { TextField } from "../../../../../components/text-field";
import { ariaSort, SortHeader, sortFromParam, sortParam, type SortableColumns } from "../../../../../components/sort-header";
import { useUrlState } from "../../../../../components/use-url-state";

const REFRESH_MS = 3_000;
const DOCUMENTS_PAGE_SIZE = 20;

export default function ConnectorPage() {
  const { id } = useParams<{ id: string }>();
  const ccPairId = /^\d+$/.test(id) ? Number(id) : null;
  if (ccPairId === null || ccPairId < 1) {
    return <EmptyState title="Not a connector id">Connector ids are positive whole numbers.</EmptyState>;
  }
  return <ConnectorDetail ccPairId={ccPairId} />;
}

function ConnectorDetail({ ccPairId }: { ccPairId: number }) {
  const trpc = useTRPC();
  const pair = useQuery(trpc.connectors.get.queryOptions({ ccPairId }, { refetchInterval: REFRESH_MS }));
  const summary = useQuery(trpc.connectors.indexingSummary.queryOptions({ ccPairId }, { refetchInterval: REFRESH_MS }));

  if (pair.error && !pair.data) {
    return (
      <>
        <BackLink />
        <QueryError error={pair.error} onRetry={() => void pair.refetch()} title={`Could not load connector #${ccPairId}`} />
      </>
    );
  }
  if (!pair.data) return <Loading label="Loading the connector…" />;
  return (
    <>
      <BackLink />
      <PageHeader
        title={
          <Group gap="sm" component="span">
            <span>{pair.data.name}</span>
            <PairStatusBadge status={pair.data.status} />
            {summary.data?.inRepeatedErrorState ? (
              <RepeatedErrorsBadge />
            ) : null}
          </Group>
        }
        description={`${sourceLabel(pair.data.source)} · ${pair.data.accessType} · pair #${pair.data.id}`}
        actions={<PairActions pair={pair.data} />}
      />
      <Stack gap="lg">
        <Fields pair={pair.data} failed={summary.data?.documents.failed ?? null} />
        <Attempts ccPairId={ccPairId} />
        {/* Its search, filter and order live in the URL (useSearchParams wants a boundary). */}
        <Suspense fallback={<Loading />}>
          <Documents ccPairId={ccPairId} summary={summary.data} />
        </Suspense>
      </Stack>
    </>
  );
}

function BackLink() {
  return (
    <Anchor component={Link} href="/admin/connectors" size="sm" mb="xs" display="inline-block">
      ← All connectors
    </Anchor>
  );
}

const PAUSE_TOGGLE = {
  pause: {
    label: "Pause",
    color: "yellow",
    status: "PAUSED",
    text: "The pair keeps accepting documents, but their indexing waits until it is resumed.",
  },
  resume: {
    label: "Resume",
    color: "green",
    status: "ACTIVE",
    text: "Documents that waited while the pair was paused are queued for indexing again.",
  },
} as const;

function PairActions({ pair }: { pair: Camel<CcPair> }) {
  const trpc = useTRPC();
  const user = useConsoleUser();
  const router = useRouter();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.connectors.pathFilter());
  const update = useMutation(trpc.connectors.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.connectors.delete.mutationOptions({ onSuccess: refresh }));
  const editable = pair.status !== "DELETING";
  const toggle = PAUSE_TOGGLE[pair.status === "PAUSED" ? "resume" : "pause"];

  // Changing a pair is for admins (a scoped one within its scope), as REST's PATCH and DELETE.
  if (user.role !== "admin" || !canEditPair(user, pair.id)) {
    return (
      <Badge variant="outline" color="gray" size="lg">
        read-only for this key
      </Badge>
    );
  }
  return (
    <>
      <RenameButton pair={pair} disabled={!editable} onRename={(name) => update.mutateAsync({ ccPairId: pair.id, name })} />
      <ConfirmAction
        // One instance per action, so that a dialog never shows the other action's text.
        key={toggle.label}
        label={toggle.label}
        title={`${toggle.label} ${pair.name}?`}
        confirmLabel={toggle.label}
        color={toggle.color}
        disabled={!editable}
        onConfirm={() => update.mutateAsync({ ccPairId: pair.id, status: toggle.status })}
      >
        {toggle.text}
      </ConfirmAction>
      <ConfirmAction
        label="Delete"
        title={`Delete ${pair.name}?`}
        confirmLabel="Delete connector"
        disabled={pair.status === "DELETING"}
        onConfirm={async () => {
          await remove.mutateAsync({ ccPairId: pair.id });
          router.push("/admin/connectors");
        }}
      >
        The pair goes to <b>Deleting</b> and a background job removes it with every document no other pair still holds
        ({formatCount(pair.docsIndexed)} indexed now). This cannot be undone.
      </ConfirmAction>
    </>
  );
}

function RenameButton({ pair, disabled, onRename }: { pair: Camel<CcPair>; disabled: boolean; onRename: (name: string) => Promise<unknown> }) {
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState(pair.name);
  const { pending, error, run, reset } = useAsyncAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await run(() => onRename(name.trim()))) close();
  };
  return (
    <>
      <Button
        variant="default"
        disabled={disabled}
        onClick={() => {
          setName(pair.name);
          reset();
          open();
        }}
      >
        Rename
      </Button>
      <Modal opened={opened} onClose={close} title={<Text fw={700}>Rename connector</Text>} centered>
        <form onSubmit={(event) => void submit(event)}>
          <Stack>
            <TextField label="Name" value={name} onValueChange={setName} required data-autofocus />
            <ErrorAlert error={error} />
            <DialogButtons onCancel={close} pending={pending} disabled={name.trim() === "" || name.trim() === pair.name}>
              Save
            </DialogButtons>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function Fields({ pair, failed }: { pair: Camel<CcPair>; failed: number | null }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 5 }} spacing="md">
      <Stat label="Documents indexed" value={<span data-testid="pair-docs-indexed">{formatCount(pair.docsIndexed)}</span>} />
      <Stat
        label="Failed documents"
        value={<span data-testid="pair-failed-documents">{failed === null ? "…" : formatCount(failed)}</span>}
        color={failed ? "red" : undefined}
        hint="stay failed until indexed"
      />
      <Stat label="Status" value={<PairStatusBadge status={pair.status} />} hint={`updated ${formatRelative(pair.updatedAt)}`} />
      <Stat label="Source" value={<Text fz="lg" fw={700}>{sourceLabel(pair.source)}</Text>} hint={<Code>{pair.source}</Code>} />
      <Stat
        label="Access"
        value={<Text fz="lg" fw={700}>{pair.accessType}</Text>}
        hint={`connector #${pair.connectorId} · credential #${pair.credentialId} · created ${formatDateTime(pair.createdAt)}`}
      />
    </SimpleGrid>
  );
}

type Attempt = RouterOutputs["connectors"]["attempts"][number];

const timeFormat = new Intl.DateTimeFormat("en-GB", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });

function Attempts({ ccPairId }: { ccPairId: number }) {
  const trpc = useTRPC();
  const attempts = useQuery(trpc.connectors.attempts.queryOptions({ ccPairId }, { refetchInterval: REFRESH_MS }));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="attempts-heading">
      <Title order={2} size="h4" id="attempts-heading" mb="sm">
        Index attempts
      </Title>
      {attempts.error ? (
        <QueryError error={attempts.error} onRetry={() => void attempts.refetch()} />
      ) : !attempts.data ? (
        <Loading />
      ) : attempts.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          No attempts yet: one opens when the worker takes up the first document of this pair.
        </Text>
      ) : (
        <Stack gap="md">
          <AttemptsChart attempts={attempts.data} />
          <DataTable
            label="Index attempts"
            minWidth={760}
            columns={["Attempt", "Status", { label: "Indexed", align: "right" }, { label: "Failed", align: "right" }, "Started", "Took", "Error"]}
          >
                {attempts.data.map((attempt) => (
                  <Table.Tr key={attempt.id} bg={attempt.status === "failed" ? "var(--mantine-color-red-light)" : undefined}>
                    <Table.Td>
                      #{attempt.id}
                      {attempt.rebuild ? (
                        <Badge ml="xs" size="xs" variant="outline" color="gray" title="An index rebuild's attempt: it does not move the pair's last success">
                          rebuild
                        </Badge>
                      ) : null}
                    </Table.Td>
                    <Table.Td>
                      <AttemptStatusBadge status={attempt.status} />
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {formatCount(attempt.docsIndexed)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace" c={attempt.docsFailed > 0 ? "red" : undefined}>
                      {formatCount(attempt.docsFailed)}
                    </Table.Td>
                    <Table.Td>
                      <RelativeTime value={attempt.startedAt ?? attempt.createdAt} />
                    </Table.Td>
                    <Table.Td>{attempt.finishedAt ? formatDuration(attempt.startedAt ?? attempt.createdAt, attempt.finishedAt) : "running"}</Table.Td>
                    <Table.Td maw={360}>
                      {attempt.errorMessage ? (
                        <Spoiler maxHeight={40} showLabel="more" hideLabel="less">
                          <Text size="xs" c="red" style={{ whiteSpace: "pre-wrap" }}>
                            {attempt.errorMessage}
                          </Text>
                        </Spoiler>
                      ) : (
                        <Text size="xs" c="dimmed">
                          —
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
          </DataTable>
        </Stack>
      )}
    </Paper>
  );
}

function AttemptsChart({ attempts }: { attempts: Attempt[] }) {
  // Oldest on the left, as time runs.
  const data = [...attempts].reverse().map((attempt) => ({
    when: timeFormat.format(attempt.startedAt ?? attempt.createdAt),
    indexed: attempt.docsIndexed,
    failed: attempt.docsFailed,
  }));
  return (
    <figure style={{ margin: 0 }} aria-label="Documents indexed per attempt over time">
      <BarChart
        h={220}
        data={data}
        dataKey="when"
        type="stacked"
        series={[
          { name: "indexed", label: "Indexed", color: "teal.6" },
          { name: "failed", label: "Failed", color: "red.6" },
        ]}
        withLegend
        tickLine="y"
        maxBarWidth={48}
        valueFormatter={formatCount}
      />
      <Text component="figcaption" size="xs" c="dimmed" ta="center">
        Documents indexed per attempt, oldest first ({plural(attempts.length, "attempt")}, the most recent)
      </Text>
    </figure>
  );
}

const DOCUMENT_FILTERS = [
  { value: "all", label: "All" },
  { value: "indexed", label: "Indexed" },
  { value: "queued", label: "Queued" },
  { value: "failed", label: "Failed" },
] as const;
type DocumentFilter = (typeof DOCUMENT_FILTERS)[number]["value"];

/** The document table's sortable columns; a first click sorts names A→Z, tries and times largest or newest first. */
const DOCUMENT_SORTABLE: SortableColumns<PairDocumentSortColumn> = {
  id: { label: "Id", firstDirection: "asc" },
  name: { label: "Document", firstDirection: "asc" },
  status: { label: "Status", firstDirection: "asc" },
  tries: { label: "Tries", firstDirection: "desc" },
  updated: { label: "Updated", firstDirection: "desc" },
};

function Documents({ ccPairId, summary }: { ccPairId: number; summary: PairIndexingSummary | undefined }) {
  const trpc = useTRPC();
  const user = useConsoleUser();
  const queryClient = useQueryClient();
  // Filter, search and order are in the URL (`status`, `q`, `sort`): a reload or a shared link keeps them.
  const { params, update } = useUrlState();
  const statusParam = PairDocumentFilterSchema.safeParse(params.get("status"));
  const filter: DocumentFilter = statusParam.success ? statusParam.data : "all";
  const query = (params.get("q") ?? "").slice(0, MAX_PAIR_DOCUMENT_QUERY_LENGTH);
  const sort = sortFromParam(params.get("sort"), PairDocumentSortColumnSchema.options);
  const [search, setSearch] = useState(query);
  // The cursors of the pages visited so far, for this filter, search and order; the last one is the page shown.
  const view = `${filter}|${query}|${params.get("sort") ?? ""}`;
  const [paging, setPaging] = useState<{ view: string; cursors: (string | null)[] }>({ view, cursors: [null] });
  const cursors = paging.view === view ? paging.cursors : [null];
  const setCursors = (change: (list: (string | null)[]) => (string | null)[]) => setPaging({ view, cursors: change(cursors) });
  const cursor = cursors.at(-1) ?? null;
  const applySearch = useDebouncedCallback((value: string) => update({ q: value.trim() || null }), 300);
  const header = (column: PairDocumentSortColumn) => (
    <SortHeader column={column} columns={DOCUMENT_SORTABLE} sort={sort} onSort={(next) => update({ sort: sortParam(next) })} />
  );
  const page = useQuery(
    trpc.connectors.documentStatuses.queryOptions(
      { ccPairId, limit: DOCUMENTS_PAGE_SIZE, cursor, status: filter === "all" ? null : filter, query: query || null, sort },
      { refetchInterval: REFRESH_MS },
    ),
  );
  const refresh = () => queryClient.invalidateQueries(trpc.connectors.pathFilter());
  const retryOne = useMutation(trpc.documents.retry.mutationOptions({ onSuccess: refresh }));
  const retryAll = useMutation(trpc.connectors.retryFailed.mutationOptions({ onSuccess: refresh }));
  const counts = summary?.documents;
  const failedCount = counts?.failed ?? 0;
  const count = (value: DocumentFilter) => (counts ? (value === "all" ? counts.indexed + counts.queued + counts.failed : counts[value]) : null);
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="documents-heading">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4" id="documents-heading">
          Documents
        </Title>
        <Group gap="xs" wrap="wrap">
          <SegmentedControl
            size="xs"
            aria-label="Show documents"
            value={filter}
            onChange={(value) => update({ status: value === "all" ? null : value })}
            data={DOCUMENT_FILTERS.map((option) => {
              const n = count(option.value);
              return { value: option.value, label: n === null ? option.label : `${option.label} (${formatCount(n)})` };
            })}
          />
          {failedCount > 0 && canEditPair(user, ccPairId) ? (
            <ConfirmAction
              label="Retry all failed"
              title={`Retry ${plural(failedCount, "failed document")}?`}
              confirmLabel="Retry all"
              color="blue"
              buttonProps={{ size: "xs", variant: "light" }}
              onConfirm={() => retryAll.mutateAsync({ ccPairId })}
            >
              Each is sent to indexing again and stays failed until a try succeeds. Documents that also belong to a connector
              this key may not change are left alone.
            </ConfirmAction>
          ) : null}
          <Badge variant="default">page {cursors.length}</Badge>
        </Group>
      </Group>
      <TextField
        label="Search documents"
        placeholder="Name or id contains…"
        value={search}
        maxLength={MAX_PAIR_DOCUMENT_QUERY_LENGTH}
        onValueChange={(value) => {
          setSearch(value);
          applySearch(value);
        }}
        mb="sm"
        maw={420}
      />
      {retryAll.data ? (
        <Text size="sm" c="dimmed" mb="xs" role="status">
          Sent {formatCount(retryAll.data.retried)} to indexing again
          {retryAll.data.skipped ? `; ${formatCount(retryAll.data.skipped)} belong to a connector this key may not change` : ""}.
        </Text>
      ) : null}
      <ErrorAlert error={retryOne.error} />
      {page.error ? (
        <QueryError error={page.error} onRetry={() => void page.refetch()} />
      ) : !page.data ? (
        <Loading />
      ) : page.data.documents.length === 0 ? (
        <Text c="dimmed" size="sm">
          {query ? (
            `No ${filter === "all" ? "" : `${filter} `}documents of this pair have “${query}” in their name or id.`
          ) : filter === "all" ? (
            <>
              No documents in this pair yet. Ingest with <Code>{`"cc_pair_id": ${ccPairId}`}</Code> to add some.
            </>
          ) : (
            `No ${filter} documents in this pair.`
          )}
        </Text>
      ) : (
        <>
          <DataTable
            label="Documents of this connector"
            minWidth={720}
            columns={[
              {
                label: (
                  <Group gap={4} wrap="nowrap" component="span">
                    {header("name")}
                    <Text span c="dimmed" aria-hidden>
                      /
                    </Text>
                    {header("id")}
                  </Group>
                ),
                sort: ariaSort(sort, "name") ?? ariaSort(sort, "id"),
              },
              { label: header("status"), sort: ariaSort(sort, "status") },
              "Failure reason",
              { label: header("tries"), align: "right", sort: ariaSort(sort, "tries") },
              { label: header("updated"), sort: ariaSort(sort, "updated") },
              "",
            ]}
            verticalSpacing={6}
          >
            {page.data.documents.map((document) => (
              <Table.Tr key={document.documentId} data-document-id={document.documentId}>
                <Table.Td>
                  <DocumentName documentId={document.documentId} semanticId={document.semanticId} />
                </Table.Td>
                <Table.Td>
                  <DocumentStatusBadge status={document.indexingStatus} />
                  {document.indexingStatus === "failed" && document.attempts === 0 ? (
                    <Text size="xs" c="dimmed">
                      retry queued
                    </Text>
                  ) : null}
                </Table.Td>
                <Table.Td maw={360}>
                  {document.indexingStatus === "failed" && document.lastError ? (
                    <FailureReason error={document.lastError} />
                  ) : (
                    <Text size="xs" c="dimmed">
                      —
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {document.attempts}
                </Table.Td>
                <Table.Td>
                  <RelativeTime value={document.updatedAt} />
                </Table.Td>
                <Table.Td ta="right">
                  {document.indexingStatus === "failed" ? (
                    <RetryDocumentButton document={document} retry={retryOne} />
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
          <Group justify="flex-end" mt="sm" gap="xs">
            <Button variant="default" size="xs" disabled={cursors.length === 1} onClick={() => setCursors((list) => list.slice(0, -1))}>
              Previous page
            </Button>
            <Button
              variant="default"
              size="xs"
              disabled={!page.data.nextCursor}
              onClick={() => {
                const next = page.data?.nextCursor;
                if (next) setCursors((list) => [...list, next]);
              }}
            >
              Next page
            </Button>
          </Group>
        </>
      )}
    </Paper>
  );
}
