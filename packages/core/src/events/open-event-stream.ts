import type { Db } from "@svc/db";
import type { Camel, EventType, SvcEvent } from "@svc/schema";
import { canViewEvent, visiblePairIds, accessRuleOf, type AccessRule, type DocumentPairLink } from "../auth/access-policy";
import type { Principal } from "../auth/principal";
import { EVENT_PAGE_SIZE, type EventHub } from "./event-hub";
import { EVENT_ORIGIN, findEventPosition, readFinalEvents, type EventPosition, type StoredEvent } from "./event-rows";

/** A stream sends a comment at least this often, so proxies and clients keep an idle stream open. */
export const EVENT_HEARTBEAT_MS = 15_000;

/** What a stream sends, in order: its position, events, and the notice that some were missed. */
export type EventStreamMessage =
  /** Where the stream stands (the id of the last event it has passed, seen or not), with a comment. */
  | { kind: "position"; id: bigint; comment: "connected" | "live" | "heartbeat" }
  | { kind: "heartbeat" }
  /** The position asked for is no longer kept: events after it may be missing; the stream goes on from the oldest kept. */
  | { kind: "missed"; after: bigint }
  | { kind: "event"; id: bigint; event: Camel<SvcEvent> };

export interface OpenEventStreamInput {
  db: Db;
  hub: EventHub;
  principal: Principal;
  /** Resume after this event id (0: from the oldest kept); null: from now. */
  after: bigint | null;
  /** Only events naming one of these pairs (among those the caller sees); null: every pair. */
  ccPairIds: readonly number[] | null;
  types: readonly EventType[] | null;
  /** Aborts when the client goes away: the stream ends and its place is released. */
  signal: AbortSignal;
  heartbeatMs?: number;
}

/**
 * Opens a stream of the events the caller may see (docs/decisions.md "Events"), in the outbox's
 * order, from `after` or from now. It takes its place first (429 past SVC_MAX_EVENT_STREAMS) and
 * resolves the position (a database read), so both are answered before the stream's 200; the
 * returned messages then flow until `signal` aborts. No database connection is held between reads.
 */
export async function openEventStream(input: OpenEventStreamInput): Promise<AsyncIterable<EventStreamMessage>> {
  const lease = await input.hub.lease();
  const release = () => lease.release();
  if (input.signal.aborted) release();
  input.signal.addEventListener("abort", release, { once: true });
  try {
    let start: EventPosition = lease.tail;
    let missed: bigint | null = null;
    if (input.after === 0n) start = EVENT_ORIGIN;
    else if (input.after !== null) {
      const found = await findEventPosition(input.db, input.after);
      if (found) start = found;
      else [start, missed] = [EVENT_ORIGIN, input.after];
    }
    return streamFrom(input, start, missed, release);
  } catch (error) {
    release();
    throw error;
  }
}

async function* streamFrom(input: OpenEventStreamInput, start: EventPosition, missed: bigint | null, release: () => void): AsyncGenerator<EventStreamMessage> {
  const { db, hub, signal } = input;
  const heartbeatMs = input.heartbeatMs ?? EVENT_HEARTBEAT_MS;
  const rule = accessRuleOf(input.principal);
  let position = start;
  let announced = start.id;
  let live = false;
  let lastSentAt = Date.now();
  // Says where the stream stands when it moved past events the caller was not shown, so that a
  // client resuming from there does not pass over them again; a bare comment otherwise.
  const beat = (comment: "live" | "heartbeat"): EventStreamMessage => {
    lastSentAt = Date.now();
    if (position.id === announced && comment === "heartbeat") return { kind: "heartbeat" };
    announced = position.id;
    return { kind: "position", id: position.id, comment };
  };
  try {
    yield { kind: "position", id: position.id, comment: "connected" };
    if (missed !== null) yield { kind: "missed", after: missed };
    while (!signal.aborted && !hub.closed) {
      const batch = hub.eventsAfter(position, EVENT_PAGE_SIZE) ?? (await readFinalEvents(db, position, EVENT_PAGE_SIZE));
      for (const stored of batch) {
        position = stored.position;
        const event = visibleEvent(input, rule, stored);
        if (!event) continue;
        yield { kind: "event", id: stored.position.id, event };
        announced = position.id;
        lastSentAt = Date.now();
      }
      const beatDue = Date.now() - lastSentAt >= heartbeatMs;
      if (batch.length > 0) {
        if (beatDue) yield beat("heartbeat");
        continue;
      }
      // Caught up with every final event: once "live", then a heartbeat whenever nothing was sent for a while.
      if (!live) {
        live = true;
        yield beat("live");
      } else if (beatDue) yield beat("heartbeat");
      await hub.waitForEvents(heartbeatMs - (Date.now() - lastSentAt), signal);
    }
  } finally {
    release();
  }
}

/** The event as the caller may see it (its pairs cut to those it sees), or null when it may not, or the filters leave it out. */
function visibleEvent(input: OpenEventStreamInput, rule: AccessRule, stored: StoredEvent): Camel<SvcEvent> | null {
  if (input.types && !input.types.includes(stored.type as EventType)) return null;
  const accessTypes = new Map(stored.pairs.map((pair) => [pair.ccPairId, pair.accessType]));
  // A pair deleted since has no access type: only its own keys (and unscoped ones) still see it.
  const links: DocumentPairLink[] = stored.ccPairIds.map((ccPairId) => ({ ccPairId, accessType: accessTypes.get(ccPairId) ?? "private" }));
  if (!canViewEvent(input.principal, { documentId: stored.documentId, pairs: links, document: stored.document })) return null;
  const ccPairIds = visiblePairIds(rule, links);
  if (input.ccPairIds && !ccPairIds.some((id) => input.ccPairIds?.includes(id))) return null;
  return {
    id: `evt_${stored.position.id}`,
    type: stored.type as EventType,
    time: stored.occurredAt.toISOString(),
    documentId: stored.documentId,
    ccPairIds,
    version: stored.version,
    status: stored.status,
    error: stored.error,
    counts: stored.counts === null ? null : { docsIndexed: stored.counts.docs_indexed, docsFailed: stored.counts.docs_failed },
  };
}
