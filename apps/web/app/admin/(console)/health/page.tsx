"use client";
import { AreaChart } from "@mantine/charts";
import { Badge, Button, Code, Group, Modal, NumberInput, Paper, Progress, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MAX_CHUNK_TOKEN_LIMIT, MIN_CHUNK_TOKEN_LIMIT } from "@svc/schema";
import { useState, type FormEvent } from "react";
import { isUnscopedAdmin } from "@svc/core/access-policy";
import { useConsoleUser } from "../../../../components/admin-shell";
import { DocumentName, FailureReason } from "../../../../components/document-cells";
import { RetryDocumentButton } from "../../../../components/retry-document-button";
import { DataTable, RelativeTime } from "../../../../components/data-table";
import { formatBytes, formatCount, formatMilliseconds, formatRelative, plural } from "../../../../components/format";
import { DeadLetterJobs } from "../../../../components/dead-letter-jobs";
import { ConfirmAction, DialogButtons } from "../../../../components/confirm-action";
import { EmptyState, ErrorAlert, Loading, PageHeader, QueryError, Stat } from "../../../../components/page-parts";
import { useTRPC } from "../../../../lib/trpc/client";
import type { RouterOutputs } from "../../../../lib/trpc/types";
import { TextField } from "../../../../components/text-field";

type Overview = RouterOutputs["health"]["overview"];

const REFRESH_MS = 3_000;
const minuteFormat = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit" });

export default function HealthPage() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.health.overview.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  return (
    <>
      <PageHeader
        title="Indexing health"
        description={`The indexing queue, workers, index, search latency, throughput and failures; refreshes every ${REFRESH_MS / 1000} s.`}
        actions={
          overview.dataUpdatedAt ? (
            <Text size="xs" c="dimmed">
              Updated {minuteFormat.format(overview.dataUpdatedAt)}
            </Text>
          ) : null
        }
      />
      {overview.error && !overview.data ? (
        <QueryError error={overview.error} onRetry={() => void overview.refetch()} />
      ) : !overview.data ? (
        <Loading label="Loading indexing health…" />
      ) : (
        <Stack gap="lg">
          {overview.error ? <QueryError error={overview.error} title="Refreshing failed; showing the last answer" /> : null}
          <Queue queue={overview.data.queue} pairsIndexing={overview.data.pairsIndexing} failedDocuments={overview.data.failedDocumentCount} />
          <Service overview={overview.data} />
          <Throughput indexed={overview.data.indexedPerMinute} rebuilt={overview.data.rebuiltPerMinute} />
          <FailedDocuments failed={overview.data.failedDocuments} total={overview.data.failedDocumentCount} />
          <DeadLetterJobs refreshMs={REFRESH_MS} />
          <Rebuild rebuild={overview.data.rebuild} />
        </Stack>
      )}
    </>
  );
}

function Queue({ queue, pairsIndexing, failedDocuments }: { queue: Overview["queue"]; pairsIndexing: number; failedDocuments: number }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" aria-label="Indexing queue">
      <Stat label="Queued" value={formatCount(queue.queued)} hint={queue.retrying > 0 ? `indexing jobs waiting, ${formatCount(queue.retrying)} of them to retry a failure` : "indexing jobs waiting"} color={queue.queued > 0 ? "blue" : undefined} />
      {/* The connectors listing's "Indexing now": pairs whose attempt is open, which it is only while their documents are being indexed. */}
      <Stat
        label="Indexing now"
        value={<span data-testid="pairs-indexing-tile">{formatCount(pairsIndexing)}</span>}
        hint={`${pairsIndexing === 1 ? "pair" : "pairs"} being indexed, ${plural(queue.active, "job")} running`}
        color={pairsIndexing > 0 ? "blue" : undefined}
      />
      <Stat
        label="Failed documents"
        value={<span data-testid="failed-documents-tile">{formatCount(failedDocuments)}</span>}
        hint="indexing failed; they stay until indexed"
        color={failedDocuments > 0 ? "red" : undefined}
      />
      <Stat
        label="Dead letter"
        value={<span data-testid="dead-letter-tile">{formatCount(queue.deadLetter)}</span>}
        hint="jobs out of retries; listed below"
        color={queue.deadLetter > 0 ? "orange" : undefined}
      />
    </SimpleGrid>
  );
}

/**
 * The workers, the index and search as they stand: live workers (GET /api/metrics' `svc_workers`), the
 * serving generation's table and the index folder (as `svc index status` counts them), and this web
 * process's search latency (`svc_search_latency_seconds`).
 */
function Service({ overview }: { overview: Overview }) {
  const { liveWorkers, indexSize, searchLatency } = overview;
  const windowMinutes = searchLatency.windowSeconds / 60;
  const latencyHint =
    searchLatency.searches === 0
      ? `no search in the last ${windowMinutes} min`
      : `${plural(searchLatency.searches, "search", "searches")} in the last ${windowMinutes} min (this web process)`;
  const serving = indexSize.serving;
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md" aria-label="Workers, index and search">
      <Stat
        label="Live workers"
        value={<span data-testid="live-workers">{formatCount(liveWorkers)}</span>}
        hint="with a heartbeat in the last 60 s"
        color={liveWorkers === 0 ? "red" : undefined}
      />
      <Stat
        label="Index size"
        value={<span data-testid="index-size">{serving ? formatBytes(serving.bytes) : "—"}</span>}
        hint={
          <span data-testid="index-size-detail">
            {serving
              ? `generation #${serving.generationId}: ${plural(serving.documents, "document")}, ${plural(serving.chunks, "chunk")}`
              : "no table for the serving generation yet"}
            {indexSize.folderBytes === null ? " · folder not measured (object store)" : ` · folder ${formatBytes(indexSize.folderBytes)}`}
          </span>
        }
      />
      <Stat
        label="Search p50"
        value={<span data-testid="search-p50">{searchLatency.p50Ms === null ? "—" : formatMilliseconds(searchLatency.p50Ms)}</span>}
        hint={<span data-testid="search-latency-window">{latencyHint}</span>}
      />
      <Stat
        label="Search p95"
        value={<span data-testid="search-p95">{searchLatency.p95Ms === null ? "—" : formatMilliseconds(searchLatency.p95Ms)}</span>}
        hint={latencyHint}
      />
    </SimpleGrid>
  );
}

function Throughput({ indexed, rebuilt }: { indexed: Overview["indexedPerMinute"]; rebuilt: Overview["rebuiltPerMinute"] }) {
  const sum = (series: { count: number }[]) => series.reduce((total, minute) => total + minute.count, 0);
  const data = indexed.map((minute, index) => ({
    minute: minuteFormat.format(minute.minute),
    indexed: minute.count,
    rebuilt: rebuilt[index]?.count ?? 0,
  }));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="throughput-heading">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="throughput-heading">
          Documents per minute
        </Title>
        <Text size="sm" c="dimmed">
          In the last hour: <span data-testid="indexed-last-hour">{formatCount(sum(indexed))} indexed</span>,{" "}
          <span data-testid="rebuilt-last-hour">{formatCount(sum(rebuilt))} rebuilt</span>
        </Text>
      </Group>
      <figure style={{ margin: 0 }} aria-label="Documents indexed and rebuilt per minute over the last hour">
        <AreaChart
          h={220}
          data={data}
          dataKey="minute"
          series={[
            { name: "indexed", label: "Indexed", color: "indigo.6" },
            { name: "rebuilt", label: "Rebuilt", color: "teal.6" },
          ]}
          withLegend
          curveType="monotone"
          withDots={false}
          tickLine="y"
          valueFormatter={formatCount}
          xAxisProps={{ interval: 9 }}
        />
      </figure>
    </Paper>
  );
}

function FailedDocuments({ failed, total }: { failed: Overview["failedDocuments"]; total: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const retry = useMutation(trpc.documents.retry.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.health.pathFilter()) }));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="failed-heading">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="failed-heading">
          Failed documents
        </Title>
        {total ? (
          <Badge color="red" data-testid="failed-documents-count">
            {formatCount(total)}
          </Badge>
        ) : null}
      </Group>
      {total > failed.length ? (
        <Text size="sm" c="dimmed" mb="xs">
          The newest {formatCount(failed.length)} of {formatCount(total)}; every failed document of a connector is on its page (filter
          Failed).
        </Text>
      ) : null}
      <ErrorAlert error={retry.error} />
      {failed.length === 0 ? (
        <Text size="sm" c="dimmed">
          No document is failing. Documents whose indexing keeps failing appear here with their error.
        </Text>
      ) : (
        <DataTable label="Failed documents" minWidth={720} columns={["Document", "Error", { label: "Tries", align: "right" }, "Last try", ""]}>
              {failed.map((document) => (
                <Table.Tr key={document.documentId}>
                  <Table.Td>
                    <DocumentName documentId={document.documentId} semanticId={document.semanticId} />
                  </Table.Td>
                  <Table.Td maw={420}>
                    <FailureReason error={document.lastError ?? "no error recorded"} />
                  </Table.Td>
                  <Table.Td ta="right">{document.attempts}</Table.Td>
                  <Table.Td>
                    <RelativeTime value={document.updatedAt} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <RetryDocumentButton document={document} retry={retry} />
                  </Table.Td>
                </Table.Tr>
              ))}
        </DataTable>
      )}
    </Paper>
  );
}

function Rebuild({ rebuild }: { rebuild: Overview["rebuild"] }) {
  const user = useConsoleUser();
  const building = rebuild.status === "building";
  const percent = rebuild.docsTotal > 0 ? Math.round((rebuild.docsDone / rebuild.docsTotal) * 100) : 0;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="rebuild-heading">
      <Group justify="space-between" mb="sm">
        <Group gap="sm">
          <Title order={2} size="h4" id="rebuild-heading">
            Index rebuild
          </Title>
          <Badge color={building ? "blue" : "gray"} variant="light">
            {building ? "building" : "idle"}
          </Badge>
        </Group>
        {/* A rebuild touches every pair: only an unscoped admin starts or cancels one. */}
        {isUnscopedAdmin(user) ? (
          <Group gap="sm">
            {building ? <CancelRebuildButton generationId={rebuild.generationId} /> : null}
            <StartRebuildButton disabled={building} />
          </Group>
        ) : null}
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        Serving generation #{rebuild.current.generationId}: chunks of up to {plural(rebuild.current.chunkTokenLimit, "token")}, text
        search configuration <Code>{rebuild.current.textSearchConfig}</Code>.
      </Text>
      {building ? (
        <Stack gap={6}>
          <Progress value={percent} size="lg" animated aria-label="Rebuild progress" />
          <Text size="sm">
            {formatCount(rebuild.docsDone)} of {plural(rebuild.docsTotal, "document")} ({percent}%) into generation #{rebuild.generationId} ·
            started {formatRelative(rebuild.startedAt)}
            {rebuild.docsFailed > 0 ? (
              <Text component="span" c="red" size="sm">
                {" "}
                · {formatCount(rebuild.docsFailed)} failed
              </Text>
            ) : null}
          </Text>
        </Stack>
      ) : (
        <EmptyState title="No rebuild running">
          A rebuild re-chunks every indexed document into a new index generation while searches keep using the current one, then
          switches over. Failed documents are not retried by it: they stay failed and count as failed.
        </EmptyState>
      )}
      {rebuild.lastRebuild ? <LastRebuild last={rebuild.lastRebuild} /> : null}
    </Paper>
  );
}

/** How the last rebuild ended, with its counts: failed documents are counted, never dropped. */
function LastRebuild({ last }: { last: NonNullable<Overview["rebuild"]["lastRebuild"]> }) {
  const canceled = last.status === "canceled";
  return (
    <Text size="sm" mt="sm" data-testid="last-rebuild">
      Last rebuild: generation #{last.generationId}{" "}
      <Badge color={canceled ? "gray" : last.docsFailed > 0 ? "orange" : "green"} variant="light">
        {canceled ? "canceled" : "swapped in"}
      </Badge>{" "}
      {plural(last.docsDone, "document")} indexed,{" "}
      <Text component="span" size="sm" c={last.docsFailed > 0 ? "red" : undefined} data-testid="last-rebuild-failed">
        {formatCount(last.docsFailed)} failed
      </Text>
      {last.completedAt ? <> · {formatRelative(last.completedAt)}</> : null}
    </Text>
  );
}

/** Cancels the running rebuild after a confirmation; search keeps the current index. */
function CancelRebuildButton({ generationId }: { generationId: number | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(trpc.health.cancelRebuild.mutationOptions());
  return (
    <ConfirmAction
      label="Cancel rebuild"
      title="Cancel the index rebuild?"
      confirmLabel="Cancel rebuild"
      onConfirm={async () => {
        await cancel.mutateAsync();
        await queryClient.invalidateQueries(trpc.health.pathFilter());
      }}
    >
      Generation #{generationId} stops and its chunks are deleted; searches keep using the current index. The rebuild&apos;s attempts
      end <Code>canceled</Code> in their connectors&apos; history. A new rebuild starts from the beginning.
    </ConfirmAction>
  );
}

function StartRebuildButton({ disabled }: { disabled: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, { open, close }] = useDisclosure(false);
  const [chunkTokenLimit, setChunkTokenLimit] = useState<string | number>("");
  const [textSearchConfig, setTextSearchConfig] = useState("");
  const start = useMutation(
    trpc.health.startRebuild.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.health.pathFilter());
        close();
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate({
      chunkTokenLimit: typeof chunkTokenLimit === "number" ? chunkTokenLimit : undefined,
      textSearchConfig: textSearchConfig.trim() || undefined,
    });
  };
  return (
    <>
      <Button onClick={open} disabled={disabled}>
        Start a rebuild
      </Button>
      <Modal opened={opened} onClose={close} title={<Text fw={700}>Rebuild the index</Text>} centered>
        <form onSubmit={submit}>
          <Stack>
            <Text size="sm">
              Every indexed document is chunked again into a new generation. Searches keep using the current index until the new
              one is complete.
            </Text>
            <NumberInput
              label="Chunk size (tokens)"
              description={`${MIN_CHUNK_TOKEN_LIMIT}–${MAX_CHUNK_TOKEN_LIMIT}; empty keeps the current size`}
              min={MIN_CHUNK_TOKEN_LIMIT}
              max={MAX_CHUNK_TOKEN_LIMIT}
              allowDecimal={false}
              value={chunkTokenLimit}
              onChange={setChunkTokenLimit}
            />
            <TextField
              label="Text search configuration"
              description="A PostgreSQL configuration, e.g. english or simple; empty keeps the current one"
              value={textSearchConfig}
              onValueChange={setTextSearchConfig}
            />
            <ErrorAlert error={start.error} />
            <DialogButtons onCancel={close} pending={start.isPending}>
              Start rebuild
            </DialogButtons>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
