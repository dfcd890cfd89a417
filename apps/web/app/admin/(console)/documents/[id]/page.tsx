"use client";
import {
  Alert,
  Anchor,
  Badge,
  Code,
  Group,
  Paper,
  SimpleGrid,
  Spoiler,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { ConfirmAction } from "../../../../../components/confirm-action";
import { ExternalLink } from "../../../../../components/external-link";
import { FileThumbnail } from "../../../../../components/file-thumbnail";
import { formatCount, formatDateTime, formatRelative, plural, sourceLabel } from "../../../../../components/format";
import { Loading, PageHeader, QueryError, Stat } from "../../../../../components/page-parts";
import { DocumentStatusBadge } from "../../../../../components/status-badge";
import { useTRPC } from "../../../../../lib/trpc/client";
import type { RouterOutputs } from "../../../../../lib/trpc/types";

type DocumentWithChunks = RouterOutputs["documents"]["get"];

const REFRESH_WHILE_INDEXING_MS = 2_000;

export default function DocumentPage() {
  // The route param arrives still percent-encoded (ids may hold `/`, sent as %2F in one segment).
  const { id } = useParams<{ id: string }>();
  const documentId = safeDecode(id);
  const trpc = useTRPC();
  const document = useQuery(
    trpc.documents.get.queryOptions(
      { documentId },
      {
        // Follow a document through its indexing; stop once it settles.
        refetchInterval: (query) => {
          const status = query.state.data?.indexingStatus;
          return status === "queued" || status === "indexing" ? REFRESH_WHILE_INDEXING_MS : false;
        },
      },
    ),
  );

  return (
    <>
      <Anchor component={Link} href="/admin/documents" size="sm" mb="xs" display="inline-block">
        ← Documents
      </Anchor>
      {document.error && !document.data ? (
        <QueryError error={document.error} onRetry={() => void document.refetch()} title={`Could not load document “${documentId}”`} />
      ) : !document.data ? (
        <Loading label="Loading the document…" />
      ) : (
        <DocumentDetail document={document.data} />
      )}
    </>
  );
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function DocumentDetail({ document }: { document: DocumentWithChunks }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.documents.delete.mutationOptions());
  const retry = useMutation(
    trpc.documents.retry.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.documents.get.queryFilter({ documentId: document.id })) }),
  );
  const upToDate = document.indexedVersion === document.currentVersion;

  return (
    <>
      <PageHeader
        title={
          <Group gap="sm" component="span">
            <span>{document.semanticIdentifier}</span>
            <DocumentStatusBadge status={document.indexingStatus} />
          </Group>
        }
        description={
          <>
            <Code className="svc-break">{document.id}</Code> · {sourceLabel(document.source)} · updated {formatDateTime(document.docUpdatedAt)}
          </>
        }
        actions={
          <>
            {document.indexingStatus === "failed" ? (
              <ConfirmAction
                label="Retry indexing"
                title="Retry indexing?"
                confirmLabel="Retry"
                color="indigo"
                onConfirm={() => retry.mutateAsync({ documentId: document.id })}
              >
                The document is queued again at its current version ({document.currentVersion}).
              </ConfirmAction>
            ) : null}
            {document.fromIngestionApi ? (
              <ConfirmAction
                label="Delete"
                title={`Delete “${document.semanticIdentifier}”?`}
                confirmLabel="Delete document"
                onConfirm={async () => {
                  await remove.mutateAsync({ documentId: document.id });
                  await queryClient.invalidateQueries(trpc.connectors.pathFilter());
                  router.push("/admin/documents");
                }}
              >
                Its sections, chunks and pair links are removed in one transaction, and the pairs&apos; counts drop. This cannot be
                undone.
              </ConfirmAction>
            ) : null}
          </>
        }
      />
      <Stack gap="lg">
        {document.lastError ? (
          <Alert color="red" title={`Indexing failed (${plural(document.attempts, "try", "tries")})`} role="alert">
            <Text size="sm" className="svc-pre">
              {document.lastError}
            </Text>
          </Alert>
        ) : null}
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
          <Stat
            label="Versions"
            value={
              <span>
                {document.indexedVersion ?? "—"} / {document.currentVersion}
              </span>
            }
            hint={
              <Badge size="xs" color={upToDate ? "green" : "yellow"} variant="light">
                {upToDate ? "index up to date" : "index behind"}
              </Badge>
            }
          />
          <Stat label="Chunks" value={document.chunkCount === null ? "—" : formatCount(document.chunkCount)} hint="in the search index" />
          <Stat label="Indexed" value={<Text fz="lg" fw={700}>{formatRelative(document.indexedAt)}</Text>} hint={formatDateTime(document.indexedAt)} />
          <Stat
            label="Connectors"
            value={
              <Group gap={4}>
                {document.ccPairIds.length === 0 ? <Text c="dimmed">none</Text> : null}
                {document.ccPairIds.map((ccPairId) => (
                  <Anchor key={ccPairId} component={Link} href={`/admin/connectors/${ccPairId}`} fz="lg" fw={700}>
                    #{ccPairId}
                  </Anchor>
                ))}
              </Group>
            }
            hint={`${plural(document.attempts, "indexing try", "indexing tries")} for this version`}
          />
        </SimpleGrid>
        <Properties document={document} />
        <Paper withBorder radius="md" p="md">
          <Tabs defaultValue="sections" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="sections">Sections ({document.sections.length})</Tabs.Tab>
              <Tabs.Tab value="chunks">Chunks ({document.chunks.length})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="sections" pt="md">
              <Sections document={document} />
            </Tabs.Panel>
            <Tabs.Panel value="chunks" pt="md">
              <Chunks document={document} />
            </Tabs.Panel>
          </Tabs>
        </Paper>
      </Stack>
    </>
  );
}

function Properties({ document }: { document: DocumentWithChunks }) {
  const metadata = Object.entries(document.metadata);
  const access = document.externalAccess;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="properties-heading">
      <Title order={2} size="h4" id="properties-heading" mb="sm">
        Properties
      </Title>
      <Table variant="vertical" layout="fixed" withTableBorder={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th className="svc-property-name">Title</Table.Th>
            <Table.Td>{document.title ?? "—"}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Metadata</Table.Th>
            <Table.Td>
              {metadata.length === 0 ? (
                "—"
              ) : (
                <Group gap={6}>
                  {metadata.map(([key, value]) => (
                    <Badge key={key} variant="default" tt="none" className="svc-tag">
                      {key}: {Array.isArray(value) ? value.join(", ") : value}
                    </Badge>
                  ))}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Access</Table.Th>
            <Table.Td>
              {access === null
                ? "From its connectors' access types"
                : access.isPublic
                  ? "Public"
                  : `Users: ${access.externalUserEmails.join(", ") || "none"} · groups: ${access.externalUserGroupIds.join(", ") || "none"}`}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Owners</Table.Th>
            <Table.Td>
              {[...(document.primaryOwners ?? []), ...(document.secondaryOwners ?? [])]
                .map((owner) => owner.displayName ?? owner.email ?? [owner.firstName, owner.lastName].filter(Boolean).join(" "))
                .filter(Boolean)
                .join(", ") || "—"}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Ingested through</Table.Th>
            <Table.Td>{document.fromIngestionApi ? "the ingestion API" : "a connector"}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

function Sections({ document }: { document: DocumentWithChunks }) {
  if (document.sections.length === 0) return <Text c="dimmed">No sections.</Text>;
  return (
    <Stack gap="sm">
      {document.sections.map((section, index) => (
        <Paper key={index} withBorder p="sm" radius="sm" bg="var(--mantine-color-default-hover)">
          <Group justify="space-between" mb={4}>
            <Text size="xs" c="dimmed" fw={700}>
              Section {index + 1} · {section.imageFileId ? "image" : "text"}
            </Text>
            {section.link ? (
              <ExternalLink href={section.link} />
            ) : null}
          </Group>
          {section.imageFileId ? (
            <Group gap="sm" mb={4}>
              <FileThumbnail fileId={section.imageFileId} name={`section ${index + 1}`} />
              <Text size="sm">
                Image <Code>{section.imageFileId}</Code>
              </Text>
            </Group>
          ) : null}
          {section.text ? (
            <Spoiler maxHeight={120} showLabel="Show all" hideLabel="Show less">
              <Text size="sm" className="svc-pre">
                {section.text}
              </Text>
            </Spoiler>
          ) : null}
        </Paper>
      ))}
    </Stack>
  );
}

function Chunks({ document }: { document: DocumentWithChunks }) {
  if (document.chunks.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        {document.indexingStatus === "indexed" ? "The index holds no chunks for it." : "No chunks yet: the document is not indexed."}
      </Text>
    );
  }
  return (
    <Stack gap="sm">
      {document.chunks.map((chunk) => (
        <Paper key={chunk.chunkIndex} withBorder p="sm" radius="sm">
          <Group justify="space-between" mb={4}>
            <Text size="xs" c="dimmed" fw={700}>
              Chunk {chunk.chunkIndex} · {plural(chunk.tokenCount, "token")}
            </Text>
            {chunk.link ? (
              <ExternalLink href={chunk.link}>link</ExternalLink>
            ) : null}
          </Group>
          {chunk.imageFileId ? (
            <Group gap="sm" mb={4}>
              <FileThumbnail fileId={chunk.imageFileId} name={`chunk ${chunk.chunkIndex}`} size={48} />
              <Text size="sm">
                Image <Code>{chunk.imageFileId}</Code>
              </Text>
            </Group>
          ) : null}
          <Spoiler maxHeight={120} showLabel="Show all" hideLabel="Show less">
            <Text size="sm" className="svc-pre" ff="monospace">
              {chunk.content}
            </Text>
          </Spoiler>
        </Paper>
      ))}
    </Stack>
  );
}

