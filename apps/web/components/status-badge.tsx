"use client";
// Every status the console shows, one color language: blue = working, green = fine, yellow = waiting
// or partial, red = failed, gray = nothing yet.
import { Badge, Loader, Tooltip, type MantineColor } from "@mantine/core";
import { IndexingStatusSchema, type ApiKeyRole, type ConnectorCredentialPairStatus, type IndexingStatus } from "@svc/schema";

/** "INITIAL_INDEXING" and "not_started" read as "Initial indexing" and "Not started": one rule for every enum shown. */
function statusLabel(status: string): string {
  const words = status.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const PAIR_STATUS_COLORS: Record<ConnectorCredentialPairStatus, MantineColor> = {
  SCHEDULED: "gray", INITIAL_INDEXING: "blue", ACTIVE: "green", PAUSED: "yellow", DELETING: "red", INVALID: "red",
};

export function PairStatusBadge({ status }: { status: ConnectorCredentialPairStatus }) {
  return (
    <Badge color={PAIR_STATUS_COLORS[status]} variant="light">
      {statusLabel(status)}
    </Badge>
  );
}

const ATTEMPT_STATUS_COLORS: Record<IndexingStatus, MantineColor> = {
  not_started: "gray", in_progress: "blue", success: "green", canceled: "gray", failed: "red",
  completed_with_errors: "orange", interrupted: "yellow",
};

/** The attempt statuses' labels; "completed_with_errors" is shortened to fit a table cell. */
export const ATTEMPT_STATUS_LABELS = Object.fromEntries(
  IndexingStatusSchema.options.map((status) => [status, status === "completed_with_errors" ? "With errors" : statusLabel(status)]),
) as Record<IndexingStatus, string>;

export function AttemptStatusBadge({ status }: { status: IndexingStatus | null }) {
  if (status === null)
    return (
      <Badge color="gray" variant="outline">
        No attempts
      </Badge>
    );
  const color = ATTEMPT_STATUS_COLORS[status];
  return (
    <Badge
      color={color}
      variant={status === "failed" ? "filled" : "light"}
      leftSection={status === "in_progress" ? <Loader size={10} color={color} type="oval" aria-hidden /> : undefined}
    >
      {ATTEMPT_STATUS_LABELS[status]}
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

/** The listing's `in_repeated_error_state`, shown the same on the listing and on a pair's page. */
export function RepeatedErrorsBadge() {
  return (
    <Tooltip label="The last attempts failed repeatedly">
      <Badge color="red" variant="filled">
        Repeated errors
      </Badge>
    </Tooltip>
  );
}

/**
 * A webhook delivery's state: delivered (a 2xx), dead (retries ran out), pending (not tried yet) or
 * retrying (pending after a failed try: `lastError` holds why).
 */
export function WebhookDeliveryBadge({ delivery }: { delivery: { status: "pending" | "delivered" | "dead"; lastError: string | null } }) {
  const label = delivery.status === "pending" && delivery.lastError !== null ? "retrying" : delivery.status;
  const color: MantineColor = { delivered: "green", dead: "red", retrying: "orange", pending: "gray" }[label];
  return (
    <Badge color={color} variant={label === "dead" ? "filled" : "light"}>
      {label}
    </Badge>
  );
}
