import { queryStatement, withSqlTransaction, type Db, type SqlClient } from "@svc/db";
import { eventWireId, type CamelOf, type EventType, type SvcEvent, type WebhookDeliverySchema } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { requireVisibleWebhookEndpoint } from "./manage-webhook-endpoints";
import { WEBHOOK_RETRY_WINDOW_MS } from "./webhook-retry-schedule";

/**
 * The one writer of `webhook_delivery` and `webhook_cursor` (docs/decisions.md "Webhooks"). The
 * fan-out reads the event outbox in commit-safe order and writes each event's deliveries with the
 * cursor's advance in one transaction; the sender claims due deliveries with a lease and records each
 * try. Named statements: the fan-out and the claim run several times a second in every worker.
 */

type WebhookDelivery = CamelOf<typeof WebhookDeliverySchema>;

interface EventRow {
  id: string;
  tx_id: string;
  type: EventType;
  occurred_at: Date;
  document_id: string | null;
  cc_pair_ids: number[];
  version: number | null;
  status: string | null;
  error: string | null;
  counts: { docs_indexed: number; docs_failed: number } | null;
}

interface EndpointRow {
  id: number;
  cc_pair_ids: number[];
  event_types: string[];
  created_at: Date;
}

interface NewDelivery {
  endpointId: number;
  eventId: string;
  eventType: string;
  documentId: string | null;
  body: string;
}

/** The body of an event as every delivery sends it; a pair-filtered endpoint learns only of its own pairs. */
function eventBody(event: EventRow, endpoint: EndpointRow): string {
  const wire: SvcEvent = {
    id: eventWireId(event.id),
    type: event.type,
    time: event.occurred_at.toISOString(),
    document_id: event.document_id,
    cc_pair_ids: endpoint.cc_pair_ids.length === 0 ? event.cc_pair_ids : event.cc_pair_ids.filter((id) => endpoint.cc_pair_ids.includes(id)),
    version: event.version,
    status: event.status,
    error: event.error,
    counts: event.counts,
  };
  return JSON.stringify(wire);
}

function matches(endpoint: EndpointRow, event: EventRow): boolean {
  return (
    event.occurred_at >= endpoint.created_at &&
    (endpoint.event_types.length === 0 || endpoint.event_types.includes(event.type)) &&
    (endpoint.cc_pair_ids.length === 0 || event.cc_pair_ids.some((id) => endpoint.cc_pair_ids.includes(id)))
  );
}

/** The events' columns a delivery is made of, `svc_event e`'s, as EventRow names them. */
const EVENT_COLUMNS = "e.id::text, e.tx_id::text, e.type, e.occurred_at, e.document_id, e.cc_pair_ids, e.version, e.status, e.error, e.counts";

/**
 * Fans the outbox's next committed events out to the endpoints they match, in one transaction that
 * also moves the cursor: an event is fanned out once, never lost, and never for a change that rolled
 * back (its row never commits). The cursor keeps a snapshot that saw every event fanned out; the
 * events new since are those of transactions it did not see (running then, or begun after), which
 * were committed in a later snapshot, the target, worked through in (tx_id, id) order. So an event
 * goes out as soon as its transaction commits, whatever other transaction still runs on the server.
 * One worker at a time (the cursor row is locked; another skips its turn). Past `queueBound` pending
 * deliveries, an endpoint's new document event replaces the pending ones of the same document (the
 * newest kept). Returns how many events it read.
 */
export async function fanOutWebhookEvents(db: Db, { queueBound, batchSize = 500 }: { queueBound: number; batchSize?: number }): Promise<number> {
  return withSqlTransaction(db, async (sql) => {
    const [cursor] = await queryStatement<{ fanned: string; target: string | null; tx_id: string; event_id: string }>(sql, {
      name: "svc-webhook-cursor-lock",
      text: "SELECT fanned_snapshot::text AS fanned, target_snapshot::text AS target, tx_id::text, event_id::text FROM webhook_cursor FOR UPDATE SKIP LOCKED",
      values: [],
    });
    if (!cursor) return 0;
    // A new target: everything committed now. Later statements see at least as much.
    const target = cursor.target ?? (await queryStatement<{ now: string }>(sql, { name: "svc-webhook-snapshot", text: "SELECT pg_current_snapshot()::text AS now", values: [] }))[0]!.now;
    const position = cursor.target === null ? { tx_id: "0", event_id: "0" } : cursor;
    const events = await queryStatement<EventRow>(sql, {
      name: "svc-webhook-next-events",
      // Two index ranges, each in order: transactions the fanned snapshot saw running, then those begun
      // after it (below the target's xmax). Ordered by the columns, not the text that sorts "10" before "9".
      text: `SELECT ${EVENT_COLUMNS} FROM (
          (SELECT * FROM svc_event WHERE tx_id = ANY(ARRAY(SELECT pg_snapshot_xip($4::pg_snapshot)))
            AND (tx_id, id) > ($1::xid8, $2::bigint) AND pg_visible_in_snapshot(tx_id, $5::pg_snapshot)
            ORDER BY tx_id, id LIMIT $3)
          UNION ALL
          (SELECT * FROM svc_event WHERE tx_id >= pg_snapshot_xmax($4::pg_snapshot) AND tx_id < pg_snapshot_xmax($5::pg_snapshot)
            AND (tx_id, id) > ($1::xid8, $2::bigint) AND pg_visible_in_snapshot(tx_id, $5::pg_snapshot)
            ORDER BY tx_id, id LIMIT $3)) e
        ORDER BY e.tx_id, e.id LIMIT $3`,
      values: [position.tx_id, position.event_id, batchSize, cursor.fanned, target],
    });
    const last = events.at(-1);
    if (events.length === batchSize && last) {
      await moveWebhookCursor(sql, { fanned: cursor.fanned, target, txId: last.tx_id, eventId: last.id });
    } else if (events.length > 0 || target !== cursor.fanned) {
      // The target is worked through: it saw every event fanned out.
      await moveWebhookCursor(sql, { fanned: target, target: null, txId: "0", eventId: "0" });
    }
    if (events.length === 0) return 0;
    const endpoints = await queryStatement<EndpointRow>(sql, {
      name: "svc-webhook-endpoints",
      text: "SELECT id, cc_pair_ids, event_types, created_at FROM webhook_endpoint",
      values: [],
    });
    if (endpoints.length > 0) await writeDeliveries(sql, planDeliveries(events, endpoints, await pendingCounts(sql, endpoints, queueBound), queueBound));
    return events.length;
  });
}

async function moveWebhookCursor(sql: SqlClient, cursor: { fanned: string; target: string | null; txId: string; eventId: string }): Promise<void> {
  await queryStatement(sql, {
    name: "svc-webhook-cursor-move",
    text: "UPDATE webhook_cursor SET fanned_snapshot = $1::pg_snapshot, target_snapshot = $2::pg_snapshot, tx_id = $3::xid8, event_id = $4::bigint",
    values: [cursor.fanned, cursor.target, cursor.txId, cursor.eventId],
  });
}

/**
 * Each endpoint's pending deliveries, counted up to `bound` (all the fan-out needs to know): an
 * endpoint down for ten minutes at 400 events a second holds 240,000, which a full count read on
 * every fan-out round.
 */
async function pendingCounts(sql: SqlClient, endpoints: EndpointRow[], bound: number): Promise<Map<number, number>> {
  const rows = await queryStatement<{ endpoint_id: number; n: number }>(sql, {
    name: "svc-webhook-pending-counts",
    text: `SELECT e.id AS endpoint_id, (SELECT count(*)::int FROM (
        SELECT 1 FROM webhook_delivery WHERE endpoint_id = e.id AND status = 'pending' LIMIT $2) p) AS n
      FROM unnest($1::int[]) AS e(id)`,
    values: [endpoints.map((endpoint) => endpoint.id), bound],
  });
  return new Map(rows.map((row) => [row.endpoint_id, row.n]));
}

/** The deliveries to write and, past an endpoint's bound, the (endpoint, document) pairs whose pending ones they replace. */
function planDeliveries(
  events: EventRow[],
  endpoints: EndpointRow[],
  pending: Map<number, number>,
  queueBound: number,
): { deliveries: NewDelivery[]; coalesced: { endpointId: number; documentId: string }[] } {
  const deliveries: NewDelivery[] = [];
  const byDocument = new Map<string, number>();
  const coalesced: { endpointId: number; documentId: string }[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (!matches(endpoint, event)) continue;
      const delivery = { endpointId: endpoint.id, eventId: event.id, eventType: event.type, documentId: event.document_id, body: eventBody(event, endpoint) };
      const count = pending.get(endpoint.id) ?? 0;
      const key = `${endpoint.id}\u0000${event.document_id ?? ""}`;
      const earlier = byDocument.get(key);
      if (count >= queueBound && event.document_id !== null) {
        if (earlier !== undefined) {
          deliveries[earlier] = delivery;
          continue;
        }
        coalesced.push({ endpointId: endpoint.id, documentId: event.document_id });
      }
      if (event.document_id !== null) byDocument.set(key, deliveries.length);
      deliveries.push(delivery);
      pending.set(endpoint.id, count + 1);
    }
  }
  return { deliveries, coalesced };
}

async function writeDeliveries(sql: SqlClient, { deliveries, coalesced }: ReturnType<typeof planDeliveries>): Promise<void> {
  if (coalesced.length > 0) {
    // Not one being sent (its lease runs): that try goes on, and the new event follows it.
    await queryStatement(sql, {
      name: "svc-webhook-coalesce",
      text: `DELETE FROM webhook_delivery d USING unnest($1::int[], $2::text[]) AS c(endpoint_id, document_id)
        WHERE d.endpoint_id = c.endpoint_id AND d.document_id = c.document_id AND d.status = 'pending'
          AND (d.leased_until IS NULL OR d.leased_until < now())`,
      values: [coalesced.map((entry) => entry.endpointId), coalesced.map((entry) => entry.documentId)],
    });
  }
  if (deliveries.length === 0) return;
  await queryStatement(sql, {
    name: "svc-webhook-insert-deliveries",
    text: `INSERT INTO webhook_delivery (endpoint_id, event_id, event_type, document_id, body, retry_until)
      SELECT d.endpoint_id, d.event_id, d.event_type, d.document_id, d.body, now() + make_interval(secs => $6::int / 1000.0)
      FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS d(endpoint_id, event_id, event_type, document_id, body)`,
    values: [
      deliveries.map((delivery) => delivery.endpointId),
      deliveries.map((delivery) => delivery.eventId),
      deliveries.map((delivery) => delivery.eventType),
      deliveries.map((delivery) => delivery.documentId),
      deliveries.map((delivery) => delivery.body),
      WEBHOOK_RETRY_WINDOW_MS,
    ],
  });
}

/** A delivery a sender took: what it posts, and where. */
export interface ClaimedDelivery {
  id: string;
  endpointId: number;
  eventId: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Takes due deliveries (oldest due first), at most `limit` in all and, of each endpoint, its room in
 * `rooms` (`share` for an endpoint not in it), and leases them for `leaseMs`: a sender that dies
 * mid-try leaves them due again when the lease ends, and another worker sends them (same id).
 */
export async function claimWebhookDeliveries(
  db: Db,
  { limit, share, rooms, leaseMs }: { limit: number; share: number; rooms: ReadonlyMap<number, number>; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const rows = await queryStatement<{ id: string; endpoint_id: number; event_id: string; body: string; attempts: number; url: string; secret: string }>(db, {
    name: "svc-webhook-claim",
    text: `WITH due AS (
        SELECT d.id, d.next_attempt_at FROM webhook_endpoint w
        LEFT JOIN unnest($3::int[], $4::int[]) AS f(endpoint_id, room) ON f.endpoint_id = w.id
        CROSS JOIN LATERAL (
          SELECT id, next_attempt_at FROM webhook_delivery
          WHERE endpoint_id = w.id AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, id LIMIT COALESCE(f.room, $5::int) FOR UPDATE SKIP LOCKED) d
        ORDER BY d.next_attempt_at, d.id LIMIT $1)
      UPDATE webhook_delivery d
      SET attempts = d.attempts + 1, last_attempt_at = now(),
        leased_until = now() + make_interval(secs => $2::int / 1000.0), next_attempt_at = now() + make_interval(secs => $2::int / 1000.0)
      FROM due, webhook_endpoint w
      WHERE d.id = due.id AND w.id = d.endpoint_id
      RETURNING d.id::text, d.endpoint_id, d.event_id::text, d.body, d.attempts, w.url, w.secret`,
    values: [limit, leaseMs, [...rooms.keys()], [...rooms.values()], share],
  });
  return rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, body: row.body, attempts: row.attempts, url: row.url, secret: row.secret }));
}

/** A try that ended, to record: the delivery's id and tries as claimed, what the try came to, and the wait before the next. */
export interface EndedTry {
  id: string;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  retryDelayMs: number;
}

/**
 * Records tries that ended, in one statement: a 2xx delivers; anything else waits its `retryDelayMs`
 * for the next try, or, when that would fall past the delivery's retry window, makes it dead (the dead
 * letter, shown per endpoint). A try whose delivery was resent or claimed again meanwhile is not
 * recorded. An endpoint that took a delivery answers again: its deliveries waiting for a retry are due
 * now, so a receiver back from an outage gets its backlog at once, not at each one's next backoff.
 * Returns each recorded delivery's status by id.
 */
export async function recordWebhookTries(db: Db, tries: readonly EndedTry[]): Promise<Map<string, "delivered" | "pending" | "dead">> {
  if (tries.length === 0) return new Map();
  const rows = await queryStatement<{ id: string; status: "delivered" | "pending" | "dead" }>(db, {
    name: "svc-webhook-record-tries",
    // The waiting ones are not being sent (no lease), so no row is changed twice.
    text: `WITH recorded AS (
        UPDATE webhook_delivery d SET
          leased_until = NULL, last_status_code = t.status_code, last_error = t.error,
          status = CASE WHEN t.delivered THEN 'delivered' WHEN now() + make_interval(secs => t.retry_ms / 1000.0) > d.retry_until THEN 'dead' ELSE 'pending' END,
          next_attempt_at = now() + make_interval(secs => t.retry_ms / 1000.0),
          finished_at = CASE WHEN t.delivered OR now() + make_interval(secs => t.retry_ms / 1000.0) > d.retry_until THEN now() END
        FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::boolean[], $6::int[]) AS t(id, attempts, status_code, error, delivered, retry_ms)
        WHERE d.id = t.id AND d.attempts = t.attempts AND d.status = 'pending'
        RETURNING d.id, d.endpoint_id, d.status),
      waiting AS (
        UPDATE webhook_delivery w SET next_attempt_at = now()
        WHERE w.endpoint_id IN (SELECT endpoint_id FROM recorded WHERE status = 'delivered')
          AND w.status = 'pending' AND w.attempts > 0 AND w.next_attempt_at > now() AND (w.leased_until IS NULL OR w.leased_until < now()))
      SELECT id::text, status FROM recorded`,
    values: [
      tries.map((ended) => ended.id),
      tries.map((ended) => ended.attempts),
      tries.map((ended) => ended.statusCode),
      tries.map((ended) => ended.error ?? (isDelivered(ended) ? null : `HTTP ${ended.statusCode}`)),
      tries.map(isDelivered),
      tries.map((ended) => ended.retryDelayMs),
    ],
  });
  return new Map(rows.map((row) => [row.id, row.status]));
}

/** A try answered 2xx. */
export function isDelivered({ statusCode }: { statusCode: number | null }): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

const deliverySelect = `id::text, event_id::text, event_type, document_id, status, attempts, created_at, last_attempt_at,
  CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at, last_status_code, last_error`;

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: EventType;
  document_id: string | null;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    eventId: eventWireId(row.event_id),
    eventType: row.event_type,
    documentId: row.document_id,
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
  };
}

/**
 * An endpoint's last `limit` deliveries, newest first (the console's page, the dead letters among
 * them); with `failuresOnly`, only those whose last try failed (dead, or waiting for a retry).
 */
export async function listWebhookDeliveries({
  db,
  principal,
  endpointId,
  limit,
  failuresOnly = false,
}: {
  db: Db;
  principal: Principal;
  endpointId: number;
  limit: number;
  failuresOnly?: boolean;
}): Promise<WebhookDelivery[]> {
  await requireVisibleWebhookEndpoint(db, principal, endpointId);
  const rows = await queryStatement<DeliveryRow>(db, {
    name: "svc-webhook-list-deliveries",
    text: `SELECT ${deliverySelect} FROM webhook_delivery d
      WHERE d.endpoint_id = $1 AND (NOT $3::boolean OR (d.status <> 'delivered' AND d.last_error IS NOT NULL))
      ORDER BY d.id DESC LIMIT $2`,
    values: [endpointId, limit, failuresOnly],
  });
  return rows.map(toDelivery);
}

/**
 * Sends a delivery again now, with the same event id and body, whatever it came to (delivered, dead,
 * waiting for a retry), with a new 24 h retry window. One being sent right now is a 409.
 */
export async function resendWebhookDelivery({ db, principal, endpointId, deliveryId }: { db: Db; principal: Principal; endpointId: number; deliveryId: number }): Promise<WebhookDelivery> {
  await requireVisibleWebhookEndpoint(db, principal, endpointId);
  const rows = await queryStatement<DeliveryRow>(db, {
    name: "svc-webhook-resend",
    text: `UPDATE webhook_delivery SET status = 'pending', next_attempt_at = now(), finished_at = NULL,
        retry_until = now() + make_interval(secs => $3::int / 1000.0)
      WHERE id = $1::bigint AND endpoint_id = $2 AND (leased_until IS NULL OR leased_until < now())
      RETURNING ${deliverySelect}`,
    values: [deliveryId, endpointId, WEBHOOK_RETRY_WINDOW_MS],
  });
  const [row] = rows;
  if (row) return toDelivery(row);
  const exists = await db.webhookDelivery.count({ where: { id: BigInt(deliveryId), endpointId } });
  if (exists === 0) throw new AppError("NOT_FOUND", "No such delivery of this webhook endpoint");
  throw new AppError("CONFLICT", "The delivery is being sent right now; resend it once this try has ended");
}

/**
 * Makes dead the pending deliveries whose retry window has ended untried (their endpoint failed all
 * along, held to one probe at a time), and deletes deliveries that ended (delivered or dead) more
 * than `retentionHours` ago; returns how many it deleted.
 */
export async function purgeFinishedWebhookDeliveries(db: Db, retentionHours: number): Promise<number> {
  const rows = await queryStatement<{ n: number }>(db, {
    name: "svc-webhook-purge-deliveries",
    text: `WITH expired AS (
        UPDATE webhook_delivery SET status = 'dead', finished_at = now(),
          last_error = COALESCE(last_error, 'Not delivered within its retry window: the endpoint kept failing')
        WHERE status = 'pending' AND retry_until < now() AND (leased_until IS NULL OR leased_until < now())),
      gone AS (DELETE FROM webhook_delivery WHERE status <> 'pending' AND finished_at < now() - make_interval(hours => $1::int) RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
    values: [retentionHours],
  });
  return rows[0]?.n ?? 0;
}
