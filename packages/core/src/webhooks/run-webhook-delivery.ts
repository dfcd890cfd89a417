import { isDatabaseStalled, type Db } from "@svc/db";
import { eventWireId } from "@svc/schema";
import type { Logger } from "../observability/create-logger";
import { MAX_CONNECTIONS_PER_RECEIVER, postWebhook } from "./post-webhook";
import { claimWebhookDeliveries, fanOutWebhookEvents, recordWebhookTries, type ClaimedDelivery, type EndedTry } from "./webhook-deliveries";
import { webhookRetryDelayMs } from "./webhook-retry-schedule";

export interface WebhookDeliveryOptions {
  db: Db;
  logger: Logger;
  /** SVC_WEBHOOK_ALLOW_PRIVATE: endpoints may be loopback or private addresses. */
  allowPrivate: boolean;
  /** SVC_WEBHOOK_TIMEOUT_MS: one try's bound, connection included. */
  timeoutMs: number;
  /** SVC_WEBHOOK_QUEUE_BOUND: pending deliveries of an endpoint past which a document's are coalesced. */
  queueBound: number;
}

/** How often an idle sender reads the outbox and takes due deliveries (an idle tick is two small statements). */
const IDLE_TICK_MS = 200;
/** How soon after a try ends the next tick takes its place: tries that end together share one tick. */
const BUSY_TICK_MS = 10;
/** Tries one worker has in flight at once, and to one endpoint: a slow endpoint holds at most its share. */
const MAX_IN_FLIGHT = 64;
const MAX_IN_FLIGHT_PER_ENDPOINT = MAX_CONNECTIONS_PER_RECEIVER;
/** How long past its timeout a try's lease runs: then a dead worker's delivery is due again. */
const LEASE_MARGIN_MS = 5_000;

/**
 * The worker's webhook sender (docs/decisions.md "Webhooks"): every tick it fans the outbox's final
 * events out to deliveries, then takes due deliveries and posts them, each try on its own (a slow
 * endpoint never holds a tick, nor indexing: this reads the outbox, it is never on a write's path).
 * An idle sender ticks every IDLE_TICK_MS; a try that ends, or a commit of events in this process
 * (`kick`), brings the next tick forward, so a busy endpoint always has its share of tries in flight
 * and an indexed document's event goes out without waiting for a tick. A failed tick (database away)
 * is logged and the next one tries again; while the database does not answer (its pool's breaker is
 * open, decisions.md "Limits and overload") no tick runs, and the first after the breaker's probe
 * succeeds carries on.
 */
export function startWebhookDelivery({ db, logger, allowPrivate, timeoutMs, queueBound }: WebhookDeliveryOptions): {
  /** Events were just committed in this process: tick now rather than at the next idle tick. */
  kick: () => void;
  stop: () => Promise<void>;
} {
  const inFlight = new Map<string, Promise<void>>();
  const perEndpoint = new Map<number, number>();
  let ticking: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let due = Infinity;

  /** Tries that ended and are not recorded yet: the next tick records them together, in one statement. */
  let ended: (EndedTry & { endpointId: number })[] = [];

  const send = async (delivery: ClaimedDelivery) => {
    const outcome = await postWebhook({ url: delivery.url, secret: delivery.secret, eventId: eventWireId(delivery.eventId), body: delivery.body, timeoutMs, allowPrivate });
    ended.push({ id: delivery.id, endpointId: delivery.endpointId, attempts: delivery.attempts, ...outcome, retryDelayMs: webhookRetryDelayMs(delivery.attempts) });
  };

  /** Records the tries that ended; one not recorded (database away) is sent again when its lease ends. */
  const recordEnded = async () => {
    const tries = ended;
    ended = [];
    const statuses = await recordWebhookTries(db, tries).catch((error: unknown) => {
      logger.error({ deliveries: tries.length, error: (error as Error).message }, "webhook tries not recorded; they are sent again when their leases end");
      return new Map<string, string>();
    });
    for (const done of tries) {
      const status = statuses.get(done.id);
      if (status === undefined || status === "delivered") continue;
      logger.warn(
        { endpoint_id: done.endpointId, delivery_id: done.id, attempts: done.attempts, status_code: done.statusCode, error: done.error, status },
        status === "dead" ? "webhook delivery dead: retries ran out" : "webhook delivery failed; retrying later",
      );
    }
  };

  const tick = async () => {
    await recordEnded();
    while ((await fanOutWebhookEvents(db, { queueBound })) > 0 && !stopped);
    const free = MAX_IN_FLIGHT - inFlight.size;
    if (free <= 0 || stopped) return;
    const claimed = await claimWebhookDeliveries(db, { limit: free, perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT, inFlight: perEndpoint, leaseMs: timeoutMs + LEASE_MARGIN_MS });
    for (const delivery of claimed) {
      perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
      const running = send(delivery).finally(() => {
        inFlight.delete(delivery.id);
        const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left === 0) perEndpoint.delete(delivery.endpointId);
        else perEndpoint.set(delivery.endpointId, left);
        schedule(BUSY_TICK_MS);
      });
      inFlight.set(delivery.id, running);
    }
  };

  /** The next tick in `delayMs`, or sooner if one is already due sooner; one tick runs at a time. */
  function schedule(delayMs: number): void {
    if (stopped || performance.now() + delayMs >= due) return;
    clearTimeout(timer);
    due = performance.now() + delayMs;
    timer = setTimeout(run, delayMs);
    timer.unref();
  }

  function run(): void {
    due = Infinity;
    if (isDatabaseStalled(db)) return schedule(IDLE_TICK_MS);
    if (ticking) return schedule(BUSY_TICK_MS);
    ticking = tick()
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, "webhook delivery tick failed"))
      .finally(() => {
        ticking = undefined;
        schedule(IDLE_TICK_MS);
      });
  }

  schedule(0);
  return {
    kick: () => schedule(0),
    // Tries in flight finish (each is bounded by the timeout) and are recorded; none is started.
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.all(inFlight.values());
      await recordEnded();
    },
  };
}
