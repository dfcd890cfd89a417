"use client";
// Every status the console shows, one color language: blue = working, green = fine, yellow = waiting
// or partial, red = failed, gray = nothing yet.
import { Badge, Loader, type MantineColor } from "@mantine/core";
import type { ApiKeyRole, ConnectorCredentialPairStatus, IndexingStatus } from "@svc/schema";

const PAIR_STATUS: Record<ConnectorCredentialPairStatus, { color: MantineColor; label: string }> = {
  SCHEDULED: { color: "gray", label: "Scheduled" },
  INITIAL_INDEXING: { color: "blue", label: "Initial indexing" },
  ACTIVE: { color: "green", label: "Active" },
  PAUSED: { color: "yellow", label: "Paused" },
  DELETING: { color: "red", label: "Deleting" },
  INVALID: { color: "red", label: "Invalid" },
};

export function PairStatusBadge({ status }: { status: ConnectorCredentialPairStatus }) {
  const { color, label } = PAIR_STATUS[status];
  return (
    <Badge color={color} variant="light">
      {label}
    </Badge>
  );
}

const ATTEMPT_STATUS: Record<IndexingStatus, { color: MantineColor; label: string }> = {
  not_started: { color: "gray", label: "Not started" },
  in_progress: { color: "blue", label: "In progress" },
  success: { color: "green", label: "Success" },
  canceled: { color: "gray", label: "Canceled" },
  failed: { color: "red", label: "Failed" },
  completed_with_errors: { color: "orange", label: "With errors" },
  interrupted: { color: "yellow", label: "Interrupted" },
};

export const ATTEMPT_STATUS_LABELS = Object.fromEntries(
  Object.entries(ATTEMPT_STATUS).map(([status, { label }]) => [status, label]),
) as Record<IndexingStatus, string>;

export function AttemptStatusBadge({ status }: { status: IndexingStatus | null }) {
  if (status === null)
    return (
      <Badge color="gray" variant="outline">
        No attempts
      </Badge>
    );
  const { color, label } = ATTEMPT_STATUS[status];
  return (
    <Badge
      color={color}
      variant={status === "failed" ? "filled" : "light"}
      leftSection={status === "in_progress" ? <Loader size={10} color={color} type="oval" aria-hidden /> : undefined}
    >
      {label}
    </Badge>
  );
}

const DOCUMENT_STATUS: Record<"queued" | "indexing" | "indexed" | "failed", MantineColor> = {
  queued: "gray",
  indexing: "blue",
  indexed: "green",
  failed: "red",
};

export function DocumentStatusBadge({ status }: { status: "queued" | "indexing" | "indexed" | "failed" }) {
  return (
    <Badge
      color={DOCUMENT_STATUS[status]}
      variant={status === "failed" ? "filled" : "light"}
      leftSection={status === "indexing" || status === "queued" ? <Loader size={10} color={DOCUMENT_STATUS[status]} aria-hidden /> : undefined}
    >
      {status}
    </Badge>
  );
}

const ROLE_COLORS: Record<ApiKeyRole, MantineColor> = { admin: "grape", curator: "indigo", basic: "gray", limited: "gray" };

export function RoleBadge({ role }: { role: ApiKeyRole }) {
  return (
    <Badge color={ROLE_COLORS[role]} variant="light">
      {role}
    </Badge>
  );
}
