import { isDatabaseStalled, type Db } from "@svc/db";
import { eventWireId } from "@svc/schema";
import type { Logger } from "../observability/create-logger";
import { postWebhook } from "./post-webhook";
import { claimWebhookDeliveries, fanOutWebhookEvents, recordWebhookTry, type ClaimedDelivery } from "./webhook-deliveries";
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

/** How often the outbox is read and due deliveries taken (an idle tick is two small statements). */
const TICK_MS = 200;
/** Tries one worker has in flight at once, and to one endpoint: a slow endpoint holds at most its share. */
const MAX_IN_FLIGHT = 32;
const MAX_IN_FLIGHT_PER_ENDPOINT = 4;
/** How long past its timeout a try's lease runs: then a dead worker's delivery is due again. */
const LEASE_MARGIN_MS = 5_000;

/**
 * The worker's webhook sender (docs/decisions.md "Webhooks"): every tick it fans the outbox's final
 * events out to deliveries, then takes due deliveries and posts them, each try on its own (a slow
 * endpoint never holds a tick, nor indexing: this reads the outbox, it is never on a write's path).
 * A failed tick (database away) is logged and the next one tries again; while the database does not
 * answer (its pool's breaker is open, decisions.md "Limits and overload") no tick runs, and the
 * first after the breaker's probe succeeds carries on.
 */
export function startWebhookDelivery({ db, logger, allowPrivate, timeoutMs, queueBound }: WebhookDeliveryOptions): { stop: () => Promise<void> } {
  const inFlight = new Map<string, Promise<void>>();
  const perEndpoint = new Map<number, number>();
  let ticking = false;
  let stopped = false;

  const send = async (delivery: ClaimedDelivery) => {
    const outcome = await postWebhook({ url: delivery.url, secret: delivery.secret, eventId: eventWireId(delivery.eventId), body: delivery.body, timeoutMs, allowPrivate });
    const status = await recordWebhookTry(db, { id: delivery.id, attempts: delivery.attempts, ...outcome, retryDelayMs: webhookRetryDelayMs(delivery.attempts) });
    if (status !== "delivered") {
      logger.warn(
        { endpoint_id: delivery.endpointId, delivery_id: delivery.id, attempts: delivery.attempts, status_code: outcome.statusCode, error: outcome.error, status },
        status === "dead" ? "webhook delivery dead: retries ran out" : "webhook delivery failed; retrying later",
      );
    }
  };

  const tick = async () => {
    while ((await fanOutWebhookEvents(db, { queueBound })) > 0 && !stopped);
    const free = MAX_IN_FLIGHT - inFlight.size;
    if (free <= 0 || stopped) return;
    const busy = [...perEndpoint].filter(([, count]) => count >= MAX_IN_FLIGHT_PER_ENDPOINT).map(([id]) => id);
    const claimed = await claimWebhookDeliveries(db, { limit: free, leaseMs: timeoutMs + LEASE_MARGIN_MS, skipEndpointIds: busy });
    for (const delivery of claimed) {
      perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
      const running = send(delivery)
        .catch((error: unknown) => logger.error({ delivery_id: delivery.id, error: (error as Error).message }, "webhook try not recorded; it is sent again when its lease ends"))
        .finally(() => {
          inFlight.delete(delivery.id);
          const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
          if (left === 0) perEndpoint.delete(delivery.endpointId);
          else perEndpoint.set(delivery.endpointId, left);
        });
      inFlight.set(delivery.id, running);
    }
  };

  const timer = setInterval(() => {
    if (ticking || stopped || isDatabaseStalled(db)) return;
    ticking = true;
    tick()
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, "webhook delivery tick failed"))
      .finally(() => (ticking = false));
  }, TICK_MS);
  timer.unref();
  return {
    // Tries in flight finish (each is bounded by the timeout) and are recorded; none is started.
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlight.values());
    },
  };
}
