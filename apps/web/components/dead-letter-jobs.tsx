"use client";
import { Anchor, Badge, Button, Code, Group, Paper, Table, Text, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { isUnscopedAdmin } from "@svc/core/access-policy";
import { useConsoleUser } from "./admin-shell";
import { ConfirmAction } from "./confirm-action";
import { DataTable, RelativeTime } from "./data-table";
import { DocumentName, FailureReason } from "./document-cells";
import { formatCount, plural } from "./format";
import { ErrorAlert, QueryError } from "./page-parts";
import { DocumentStatusBadge } from "./status-badge";
import { useTRPC } from "../lib/trpc/client";
import type { RouterOutputs } from "../lib/trpc/types";

type DeadLetterJob = RouterOutputs["health"]["deadLetters"]["jobs"][number];

/**
 * The dead-letter queue's jobs the user may see, newest first, with what each was for, its last error
 * and a retry (one, or all) for an admin without scope: the job moves back to its queue as a new job.
 */
export function DeadLetterJobs({ refreshMs }: { refreshMs: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const user = useConsoleUser();
  const canRetry = isUnscopedAdmin(user);
  const list = useQuery(trpc.health.deadLetters.queryOptions(undefined, { refetchInterval: refreshMs }));
  const retry = useMutation(trpc.health.retryDeadLetter.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.health.pathFilter()) }));
  const total = list.data?.total ?? 0;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="dead-letter-heading">
      <Group justify="space-between" mb="sm">
        <Group gap="sm">
          <Title order={2} size="h4" id="dead-letter-heading">
            Dead letter
          </Title>
          {total ? (
            <Badge color="orange" data-testid="dead-letter-count">
              {formatCount(total)}
            </Badge>
          ) : null}
        </Group>
        {canRetry && total > 0 ? (
          <ConfirmAction
            label="Retry all"
            title="Retry every dead-letter job?"
            confirmLabel="Retry all"
            color="blue"
            buttonProps={{ variant: "light", size: "xs" }}
            onConfirm={() => retry.mutateAsync({ all: true })}
          >
            {plural(total, "job")} move back to the queue each failed on, as new jobs with that queue&apos;s retries. Failed documents
            start their tries again.
          </ConfirmAction>
        ) : null}
      </Group>
      <Text size="sm" c="dimmed" mb="xs">
        Jobs that failed on every retry: pg-boss keeps them here for 14 days.
        {list.data && list.data.total > list.data.jobs.length ? ` The newest ${formatCount(list.data.jobs.length)} of ${formatCount(total)}.` : ""}
      </Text>
      <ErrorAlert error={retry.error} />
      {list.error && !list.data ? (
        <QueryError error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data ? null : list.data.jobs.length === 0 ? (
        <Text size="sm" c="dimmed">
          No job is in the dead-letter queue{canRetry ? "" : " among those you may see"}.
        </Text>
      ) : (
        <DataTable label="Dead-letter jobs" minWidth={820} columns={["Job", "For", "Connectors", "Error", { label: "Runs", align: "right" }, "Moved", ""]}>
          {list.data.jobs.map((job) => (
            <Table.Tr key={job.jobId} data-job-id={job.jobId}>
              <Table.Td>
                <Code>{job.queue}</Code>
              </Table.Td>
              <Table.Td>
                <JobTarget job={job} />
              </Table.Td>
              <Table.Td>
                {job.ccPairIds.length === 0
                  ? "—"
                  : job.ccPairIds.map((ccPairId) => (
                      <Anchor key={ccPairId} component={Link} href={`/admin/connectors/${ccPairId}`} size="sm" mr={6}>
                        #{ccPairId}
                      </Anchor>
                    ))}
              </Table.Td>
              <Table.Td maw={360}>
                <FailureReason error={job.documentError ?? job.error ?? "no error recorded"} />
                {job.documentError !== null && job.error !== null && job.error !== job.documentError ? (
                  <Text size="xs" c="dimmed">
                    Its batch: {job.error}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td ta="right">{job.runs}</Table.Td>
              <Table.Td>
                <RelativeTime value={job.failedAt} />
              </Table.Td>
              <Table.Td ta="right">
                {canRetry ? (
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => retry.mutate({ jobId: job.jobId })}
                    loading={retry.isPending && retry.variables !== undefined && "jobId" in retry.variables && retry.variables.jobId === job.jobId}
                    aria-label={`Retry job ${job.jobId}`}
                  >
                    Retry
                  </Button>
                ) : null}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Paper>
  );
}

/** What the job was for: its document (and how it stands now), the pair it deletes, or the generation. */
function JobTarget({ job }: { job: DeadLetterJob }) {
  if (job.documentId !== null) {
    if (job.semanticId === null) {
      return (
        <Text size="xs" ff="monospace">
          {job.documentId} <Text span size="xs" c="dimmed">(deleted since)</Text>
        </Text>
      );
    }
    return (
      <Group gap={6} wrap="nowrap" align="flex-start">
        <div>
          <DocumentName documentId={job.documentId} semanticId={job.semanticId} />
        </div>
        {job.documentStatus ? <DocumentStatusBadge status={job.documentStatus} /> : null}
      </Group>
    );
  }
  if (job.generationId !== null) return <Text size="sm">Index generation #{job.generationId}</Text>;
  if (job.ccPairIds.length === 1) return <Text size="sm">Connector #{job.ccPairIds[0]}</Text>;
  return <Text size="sm">—</Text>;
}
