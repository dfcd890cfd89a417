"use client";
import { Badge, Button, Code, Grid, Group, MultiSelect, Paper, SegmentedControl, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { EventTypeSchema, type Camel, type CreateWebhookRequest, type EventType } from "@svc/schema";
import { Suspense, useCallback, useState, type FormEvent } from "react";
import { canEditPair, useConsoleUser } from "../../../../components/admin-shell";
import { ConfirmAction } from "../../../../components/confirm-action";
import { DataTable, RelativeTime } from "../../../../components/data-table";
import { FailureReason } from "../../../../components/document-cells";
import { formatDateTime, plural } from "../../../../components/format";
import { EmptyState, ErrorAlert, Loading, PageHeader, QueryError } from "../../../../components/page-parts";
import { PairPicker } from "../../../../components/pair-picker";
import { ShownOnce } from "../../../../components/shown-once";
import { WebhookDeliveryBadge } from "../../../../components/status-badge";
import { TextField } from "../../../../components/text-field";
import { useUrlState } from "../../../../components/use-url-state";
import { useTRPC } from "../../../../lib/trpc/client";
import type { RouterOutputs } from "../../../../lib/trpc/types";

type Endpoint = RouterOutputs["webhooks"]["list"][number];
type Delivery = RouterOutputs["webhooks"]["deliveries"][number];

const REFRESH_MS = 3_000;
/** Filters shown in a cell before the rest fold into "+N". */
const SHOWN_FILTERS = 3;

export default function WebhooksPage() {
  // The chosen endpoint is in the URL (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<Loading />}>
      <Webhooks />
    </Suspense>
  );
}

function Webhooks() {
  const trpc = useTRPC();
  const endpoints = useQuery(trpc.webhooks.list.queryOptions());
  const { params, update } = useUrlState();
  const chosen = Number(params.get("endpoint"));
  const selected = endpoints.data?.find((endpoint) => endpoint.id === chosen) ?? endpoints.data?.[0] ?? null;
  const select = (id: number) => update({ endpoint: String(id) });
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="svc POSTs each event to the endpoints whose pairs and event types match, signed with the endpoint's secret (Standard Webhooks), and retries a failure for 24 h."
      />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <AddEndpoint onCreated={select} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          {endpoints.error ? (
            <QueryError error={endpoints.error} onRetry={() => void endpoints.refetch()} title="Could not load the webhook endpoints" />
          ) : !endpoints.data ? (
            <Loading label="Loading webhook endpoints…" />
          ) : endpoints.data.length === 0 ? (
            <EmptyState title="No webhook endpoints yet">Add one to learn when documents are indexed, fail or are deleted.</EmptyState>
          ) : (
            <Stack gap="lg">
              <EndpointTable endpoints={endpoints.data} selectedId={selected?.id ?? null} onSelect={select} />
              {selected ? <Deliveries key={selected.id} endpoint={selected} /> : null}
            </Stack>
          )}
        </Grid.Col>
      </Grid>
    </>
  );
}

function AddEndpoint({ onCreated }: { onCreated: (id: number) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const user = useConsoleUser();
  const [url, setUrl] = useState("");
  const [pairIds, setPairIds] = useState<string[]>([]);
  const [eventTypes, setEventTypes] = useState<string[]>([]);
  // A scoped admin registers for its own pairs only (core refuses the others).
  const mayRegisterFor = useCallback((ccPairId: number) => canEditPair(user, ccPairId), [user]);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (created) => {
        setUrl("");
        setPairIds([]);
        setEventTypes([]);
        await queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
        onCreated(created.id);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request: Camel<CreateWebhookRequest> = {
      url: url.trim(),
      ccPairIds: pairIds.length ? pairIds.map(Number) : null,
      eventTypes: eventTypes.length ? (eventTypes as EventType[]) : null,
    };
    create.mutate(request);
  };
  return (
    <Stack gap="md">
      <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="add-webhook-heading">
        <Title order={2} size="h4" id="add-webhook-heading" mb="md">
          Add an endpoint
        </Title>
        <form onSubmit={submit} aria-label="Add a webhook endpoint">
          <Stack>
            <TextField label="URL" placeholder="https://example.com/hooks" value={url} onValueChange={setUrl} required type="url" />
            <PairPicker
              label="Pairs"
              description={user.scopeCcPairIds ? "Optional: empty means every pair of this key's scope" : "Optional: empty means every pair"}
              placeholder="All pairs"
              value={pairIds}
              onChange={setPairIds}
              offered={mayRegisterFor}
            />
            <MultiSelect
              label="Event types"
              description="Optional: empty means every type"
              placeholder={eventTypes.length ? undefined : "All event types"}
              data={EventTypeSchema.options}
              value={eventTypes}
              onChange={setEventTypes}
              clearable
            />
            <ErrorAlert error={create.error} />
            <Button type="submit" loading={create.isPending} disabled={url.trim() === ""} w="fit-content">
              Add endpoint
            </Button>
          </Stack>
        </form>
      </Paper>
      {create.data ? (
        <ShownOnce
          title={`Endpoint #${create.data.id} added`}
          value={create.data.secret}
          copyLabel="Copy secret"
          testId="new-webhook-secret"
          onDismiss={() => create.reset()}
        >
          Your receiver verifies each delivery&apos;s <Code>webhook-signature</Code> with it.
        </ShownOnce>
      ) : null}
    </Stack>
  );
}

/** `null` (every one) as "all", else the first few as badges and the rest counted. */
function FilterCell({ values, label }: { values: string[] | null; label: string }) {
  if (values === null)
    return (
      <Text size="sm" c="dimmed">
        all
      </Text>
    );
  const rest = values.slice(SHOWN_FILTERS);
  return (
    <Group gap={4} aria-label={label}>
      {values.slice(0, SHOWN_FILTERS).map((value) => (
        <Badge key={value} variant="outline" color="gray" tt="none">
          {value}
        </Badge>
      ))}
      {rest.length ? (
        <Tooltip label={rest.join(", ")}>
          <Badge variant="light" color="gray">
            +{rest.length}
          </Badge>
        </Tooltip>
      ) : null}
    </Group>
  );
}

function EndpointTable({ endpoints, selectedId, onSelect }: { endpoints: Endpoint[]; selectedId: number | null; onSelect: (id: number) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.webhooks.pathFilter()) }));
  return (
    <Paper withBorder radius="md" component="section" aria-labelledby="endpoints-heading">
      <Group justify="space-between" p="md" pb={0}>
        <Title order={2} size="h4" id="endpoints-heading">
          Endpoints
        </Title>
        <Text size="sm" c="dimmed">
          {plural(endpoints.length, "endpoint")}
        </Text>
      </Group>
      <DataTable label="Webhook endpoints" minWidth={760} columns={["URL", "Pairs", "Event types", "Created", ""]}>
        {endpoints.map((endpoint) => (
          <Table.Tr key={endpoint.id} data-endpoint-id={endpoint.id} bg={endpoint.id === selectedId ? "var(--mantine-color-default-hover)" : undefined}>
            <Table.Td miw={220} maw={320}>
              <Text size="sm" fw={600} style={{ wordBreak: "break-all" }}>
                {endpoint.url}
              </Text>
              <Text size="xs" c="dimmed">
                #{endpoint.id}
              </Text>
            </Table.Td>
            <Table.Td>
              <FilterCell values={endpoint.ccPairIds?.map((id) => `#${id}`) ?? null} label="Pairs" />
            </Table.Td>
            <Table.Td>
              <FilterCell values={endpoint.eventTypes} label="Event types" />
            </Table.Td>
            <Table.Td>
              <RelativeTime value={endpoint.createdAt} />
            </Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <Button
                  size="xs"
                  variant={endpoint.id === selectedId ? "filled" : "default"}
                  aria-pressed={endpoint.id === selectedId}
                  aria-label={`Deliveries of ${endpoint.url}`}
                  onClick={() => onSelect(endpoint.id)}
                >
                  Deliveries
                </Button>
                <ConfirmAction
                  label="Delete"
                  title={`Delete endpoint #${endpoint.id}?`}
                  confirmLabel="Delete endpoint"
                  buttonProps={{ size: "xs", "aria-label": `Delete ${endpoint.url}` }}
                  onConfirm={() => remove.mutateAsync({ endpointId: endpoint.id })}
                >
                  svc stops sending events to <Code style={{ wordBreak: "break-all" }}>{endpoint.url}</Code> at once; its deliveries still
                  pending are dropped, and its list of deliveries goes with it. This cannot be undone.
                </ConfirmAction>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Paper>
  );
}

/** What the last try got: a delivered one's status code, a failed one's error (`HTTP 500`, a timeout, a refused connection). */
function LastAnswer({ delivery }: { delivery: Delivery }) {
  if (delivery.lastError !== null) return <FailureReason error={delivery.lastError} />;
  return <Text size="sm">{delivery.lastStatusCode === null ? "—" : `HTTP ${delivery.lastStatusCode}`}</Text>;
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [view, setView] = useState<"all" | "failures">("all");
  const deliveries = useQuery(
    trpc.webhooks.deliveries.queryOptions({ endpointId: endpoint.id, failuresOnly: view === "failures" }, { refetchInterval: REFRESH_MS }),
  );
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter()) }));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="deliveries-heading">
      <Group justify="space-between" mb="sm" gap="sm">
        <Stack gap={0} miw={0}>
          <Title order={2} size="h4" id="deliveries-heading">
            Deliveries of endpoint #{endpoint.id}
          </Title>
          <Text size="xs" c="dimmed" style={{ wordBreak: "break-all" }}>
            {endpoint.url}
          </Text>
        </Stack>
        <SegmentedControl
          size="xs"
          aria-label="Which deliveries"
          value={view}
          onChange={setView}
          data={[
            { value: "all", label: "Last deliveries" },
            { value: "failures", label: "Failures" },
          ]}
        />
      </Group>
      <ErrorAlert error={resend.error} />
      {deliveries.error ? (
        <QueryError error={deliveries.error} onRetry={() => void deliveries.refetch()} title="Could not load the deliveries" />
      ) : !deliveries.data ? (
        <Loading label="Loading deliveries…" />
      ) : deliveries.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          {view === "failures"
            ? "No failure: every delivery whose last try failed (waiting for a retry, or dead once retries ran out) appears here."
            : "Nothing sent yet: each event of the endpoint's pairs and types is listed here once it is queued."}
        </Text>
      ) : (
        <DataTable
          label="Webhook deliveries"
          minWidth={720}
          columns={["Event", "Document", "Status", { label: "Tries", align: "right" }, "Last answer", "Last try", ""]}
        >
          {deliveries.data.map((delivery) => (
            <Table.Tr key={delivery.id} data-delivery-id={delivery.id} data-event-id={delivery.eventId}>
              <Table.Td>
                <Code>{delivery.eventId}</Code>
                <Text size="xs" c="dimmed">
                  {delivery.eventType}
                </Text>
              </Table.Td>
              <Table.Td maw={200}>
                <Text size="xs" ff="monospace" style={{ wordBreak: "break-all" }}>
                  {delivery.documentId ?? "—"}
                </Text>
              </Table.Td>
              <Table.Td>
                <Tooltip label={`Next try ${formatDateTime(delivery.nextAttemptAt)}`} disabled={delivery.nextAttemptAt === null}>
                  <span>
                    <WebhookDeliveryBadge delivery={delivery} />
                  </span>
                </Tooltip>
              </Table.Td>
              <Table.Td ta="right">{delivery.attempts}</Table.Td>
              <Table.Td maw={200}>
                <LastAnswer delivery={delivery} />
              </Table.Td>
              <Table.Td>
                <RelativeTime value={delivery.lastAttemptAt ?? delivery.createdAt} />
              </Table.Td>
              <Table.Td ta="right">
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => resend.mutate({ endpointId: endpoint.id, deliveryId: delivery.id })}
                  loading={resend.isPending && resend.variables?.deliveryId === delivery.id}
                  aria-label={`Resend ${delivery.eventId}`}
                >
                  Resend
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Paper>
  );
}
