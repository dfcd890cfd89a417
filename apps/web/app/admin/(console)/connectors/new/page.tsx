"use client";
import { Alert, Anchor, Button, Grid, Paper, Radio, Select, Stack, Text, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  AccessTypeSchema,
  DOCUMENT_SOURCES,
  FederatedConnectorSourceSchema,
  type AccessType,
  type DocumentSource,
  type FederatedConnectorSource,
} from "@svc/schema";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useConsoleUser } from "../../../../../components/admin-shell";
import { sourceLabel } from "../../../../../components/format";
import { ErrorAlert, PageHeader } from "../../../../../components/page-parts";
import { useTRPC } from "../../../../../lib/trpc/client";
import { TextField } from "../../../../../components/text-field";

const ACCESS_DESCRIPTIONS: Record<AccessType, string> = {
  public: "Every user may see its documents.",
  private: "Only users named in each document's external access.",
  sync: "Permissions synced from the source, per document.",
};

export default function NewConnectorPage() {
  const user = useConsoleUser();
  return (
    <>
      <Anchor component={Link} href="/admin/connectors" size="sm" mb="xs" display="inline-block">
        ← All connectors
      </Anchor>
      <PageHeader title="New connector" description="A connector-credential pair to ingest documents into, or a federated connector searched live." />
      {user.role !== "admin" ? (
        <Alert color="yellow" mb="lg" title="Admins only">
          Creating connectors needs an admin key; you are signed in as a {user.role}.
        </Alert>
      ) : null}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <PairForm />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <FederatedForm />
        </Grid.Col>
      </Grid>
    </>
  );
}

function PairForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [source, setSource] = useState<DocumentSource>("ingestion_api");
  const [accessType, setAccessType] = useState<AccessType>("public");
  const create = useMutation(
    trpc.connectors.create.mutationOptions({
      onSuccess: async (created) => {
        await queryClient.invalidateQueries(trpc.connectors.pathFilter());
        router.push(`/admin/connectors/${created.ccPairId}`);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), source, accessType });
  };
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="pair-form-heading">
      <Title order={2} size="h4" id="pair-form-heading" mb="xs">
        Connector-credential pair
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Ingest with its <code>cc_pair_id</code> and its documents are counted and listed under it. It starts as Scheduled.
      </Text>
      <form onSubmit={submit} aria-label="New connector-credential pair">
        <Stack>
          <TextField label="Name" placeholder="Team wiki" value={name} onValueChange={setName} required />
          <Select
            label="Source"
            description={`${DOCUMENT_SOURCES.length} document sources`}
            data={DOCUMENT_SOURCES.map((value) => ({ value, label: `${sourceLabel(value)} (${value})` }))}
            value={source}
            onChange={(value) => value && setSource(value)}
            searchable
            allowDeselect={false}
            required
          />
          <Radio.Group label="Access type" value={accessType} onChange={(value) => setAccessType(value)} required>
            <Stack gap="xs" mt="xs">
              {AccessTypeSchema.options.map((value) => (
                <Radio key={value} value={value} label={value} description={ACCESS_DESCRIPTIONS[value]} />
              ))}
            </Stack>
          </Radio.Group>
          <ErrorAlert error={create.error} title="Could not create the connector" />
          <Button type="submit" loading={create.isPending} disabled={name.trim() === ""} w="fit-content">
            Create connector
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

function FederatedForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [source, setSource] = useState<FederatedConnectorSource>("federated_slack");
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.connectors.createFederated.mutationOptions({
      onSuccess: () => {
        setName("");
        return queryClient.invalidateQueries(trpc.connectors.pathFilter());
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ source, name: name.trim() || undefined });
  };
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="federated-form-heading">
      <Title order={2} size="h4" id="federated-form-heading" mb="xs">
        Federated connector
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Searched live at query time; it indexes nothing and is listed under its plain source. It belongs to no pair, so
        creating one needs an admin key without scope.
      </Text>
      <form onSubmit={submit} aria-label="New federated connector">
        <Stack>
          <Select
            label="Federated source"
            data={FederatedConnectorSourceSchema.options.map((value) => ({ value, label: sourceLabel(value) }))}
            value={source}
            onChange={(value) => value && setSource(value)}
            allowDeselect={false}
          />
          <TextField
            label="Name"
            description="Optional; defaults to the source's name"
            value={name}
            onValueChange={setName}
          />
          <ErrorAlert error={create.error} />
          {create.data ? (
            <Alert color="green" role="status">
              Federated connector #{create.data.id} added. <Anchor component={Link} href="/admin/connectors?source=slack">See it in the list</Anchor>.
            </Alert>
          ) : null}
          <Button type="submit" variant="light" loading={create.isPending} w="fit-content">
            Add federated connector
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
