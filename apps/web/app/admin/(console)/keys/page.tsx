"use client";
import { Badge, Button, Code, Grid, Group, Paper, Select, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiKeyRoleSchema, type ApiKeyRole } from "@svc/schema";
import { useState, type FormEvent } from "react";
import { ConfirmAction } from "../../../../components/confirm-action";
import { DataTable, RelativeTime } from "../../../../components/data-table";
import { formatDateTime, plural } from "../../../../components/format";
import { EmptyState, ErrorAlert, Loading, PageHeader, QueryError } from "../../../../components/page-parts";
import { RoleBadge } from "../../../../components/status-badge";
import { useTRPC } from "../../../../lib/trpc/client";
import type { RouterOutputs } from "../../../../lib/trpc/types";
import { ShownOnce } from "../../../../components/shown-once";
import { TextField } from "../../../../components/text-field";
import { PairPicker } from "../../../../components/pair-picker";

const ROLE_DESCRIPTIONS: Record<ApiKeyRole, string> = {
  admin: "everything, the console included",
  curator: "ingestion, the connector listing, search, the console",
  basic: "read-only uses",
  limited: "the narrowest access",
};

export default function KeysPage() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.keys.list.queryOptions());
  return (
    <>
      <PageHeader title="API keys" description="Keys for scripts and pipelines. Only a hash of each key is stored: a new key is shown once." />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <CreateKey />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          {keys.error ? (
            <QueryError error={keys.error} onRetry={() => void keys.refetch()} title="Could not load the keys" />
          ) : !keys.data ? (
            <Loading label="Loading keys…" />
          ) : keys.data.length === 0 ? (
            <EmptyState title="No keys yet" />
          ) : (
            <KeyTable keys={keys.data} />
          )}
        </Grid.Col>
      </Grid>
    </>
  );
}

function CreateKey() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [role, setRole] = useState<ApiKeyRole>("curator");
  const [scope, setScope] = useState<string[]>([]);
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: () => {
        setName("");
        setScope([]);
        return queryClient.invalidateQueries(trpc.keys.pathFilter());
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), role, scopeCcPairIds: scope.length ? scope.map(Number) : undefined });
  };

  return (
    <Stack gap="md">
      <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="create-key-heading">
        <Title order={2} size="h4" id="create-key-heading" mb="md">
          Create a key
        </Title>
        <form onSubmit={submit} aria-label="Create an API key">
          <Stack>
            <TextField label="Name" placeholder="ci-pipeline" value={name} onValueChange={setName} required />
            {/* The chosen role's reach is written under the field: in the field itself it would be cut. */}
            <Select
              label="Role"
              description={ROLE_DESCRIPTIONS[role]}
              inputWrapperOrder={["label", "input", "description"]}
              data={ApiKeyRoleSchema.options.map((value) => ({ value, label: value }))}
              renderOption={({ option }) => (
                <Stack gap={0}>
                  <Text size="sm">{option.value}</Text>
                  <Text size="xs" c="dimmed">
                    {ROLE_DESCRIPTIONS[option.value]}
                  </Text>
                </Stack>
              )}
              value={role}
              onChange={(value) => value && setRole(value)}
              allowDeselect={false}
            />
            <PairPicker
              label="Limit to connectors"
              description="Optional: a scoped key sees these pairs and public ones, and changes only these"
              placeholder="All connectors"
              value={scope}
              onChange={setScope}
            />
            <ErrorAlert error={create.error} />
            <Button type="submit" loading={create.isPending} disabled={name.trim() === ""} w="fit-content">
              Create key
            </Button>
          </Stack>
        </form>
      </Paper>
      {create.data ? (
        <ShownOnce title={`Key “${create.data.name}” created`} value={create.data.key} copyLabel="Copy key" testId="new-api-key" onDismiss={() => create.reset()} />
      ) : null}
    </Stack>
  );
}

function KeyTable({ keys }: { keys: RouterOutputs["keys"]["list"] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.keys.revoke.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.keys.pathFilter()) }));
  const active = keys.filter((key) => key.revokedAt === null).length;
  return (
    <Paper withBorder radius="md" component="section" aria-labelledby="keys-heading">
      <Group justify="space-between" p="md" pb={0}>
        <Title order={2} size="h4" id="keys-heading">
          Keys
        </Title>
        <Text size="sm" c="dimmed">
          {active} active · {keys.length - active} revoked
        </Text>
      </Group>
      <DataTable label="API keys" minWidth={760} columns={["Name", "Role", "Key", "Scope", "Created", "Last used", ""]}>
            {keys.map((key) => (
              <Table.Tr key={key.id} data-key-id={key.id} c={key.revokedAt ? "dimmed" : undefined}>
                <Table.Td fw={600}>{key.name}</Table.Td>
                <Table.Td>
                  <RoleBadge role={key.role} />
                </Table.Td>
                <Table.Td>
                  <Code>{key.displayPrefix}…</Code>
                </Table.Td>
                <Table.Td>
                  {key.scopeCcPairIds.length === 0 ? (
                    <Text size="sm" c="dimmed">
                      all
                    </Text>
                  ) : (
                    <Tooltip label={key.scopeCcPairIds.map((id) => `#${id}`).join(", ")}>
                      <Badge variant="outline" color="gray">
                        {plural(key.scopeCcPairIds.length, "pair")}
                      </Badge>
                    </Tooltip>
                  )}
                </Table.Td>
                <Table.Td>
                  <RelativeTime value={key.createdAt} />
                </Table.Td>
                <Table.Td>
                  <RelativeTime value={key.lastUsedAt} />
                </Table.Td>
                <Table.Td ta="right">
                  {key.revokedAt ? (
                    <Badge color="gray" variant="outline" title={formatDateTime(key.revokedAt)}>
                      revoked
                    </Badge>
                  ) : (
                    <ConfirmAction
                      label="Revoke"
                      title={`Revoke “${key.name}”?`}
                      confirmLabel="Revoke key"
                      buttonProps={{ size: "xs", "aria-label": `Revoke ${key.name}` }}
                      onConfirm={() => revoke.mutateAsync({ id: key.id })}
                    >
                      Requests with this key get 401 from now on, in every process, and its console sessions end. This cannot be
                      undone.
                    </ConfirmAction>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
      </DataTable>
    </Paper>
  );
}
