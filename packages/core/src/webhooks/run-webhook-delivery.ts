import { isDatabaseStalled, type Db } from "@svc/db";
import { eventWireId } from "@svc/schema";
import type { Logger } from "../observability/create-logger";
import { EndpointBreakers } from "./endpoint-breakers";
import { MAX_CONNECTIONS_PER_RECEIVER, postWebhook } from "./post-webhook";
import { claimWebhookDeliveries, fanOutWebhookEvents, isDelivered, recordWebhookTries, type ClaimedDelivery, type EndedTry } from "./webhook-deliveries";
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

/** How often an idle sender reads the outbox, and takes due deliveries (each an idle round of one or two small statements). */
const IDLE_ROUND_MS = 200;
/** How soon after a try ends the next round of takes follows: tries that end together share one round. */
const BUSY_ROUND_MS = 10;
/** Tries one worker has in flight at once, and to one endpoint: a slow endpoint holds at most its share. */
const MAX_IN_FLIGHT = 256;
const MAX_IN_FLIGHT_PER_ENDPOINT = MAX_CONNECTIONS_PER_RECEIVER;
/** How long past its timeout a try's lease runs: then a dead worker's delivery is due again. */
const LEASE_MARGIN_MS = 5_000;

/**
 * A round of work run again and again, one at a time: every `idleMs` after the last, or sooner when
 * `soon(delayMs)` asks (requests coalesce). No round runs while the database does not answer (its
 * pool's breaker is open, decisions.md "Limits and overload"); a failed round is logged and the next
 * one tries again.
 */
function repeatRounds(name: string, { db, logger, idleMs }: { db: Db; logger: Logger; idleMs: number }, round: () => Promise<void>) {
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let due = Infinity;

  function soon(delayMs: number): void {
    if (stopped || performance.now() + delayMs >= due) return;
    clearTimeout(timer);
    due = performance.now() + delayMs;
    timer = setTimeout(run, delayMs);
    timer.unref();
  }

  function run(): void {
    due = Infinity;
    if (isDatabaseStalled(db)) return soon(idleMs);
    if (running) return soon(BUSY_ROUND_MS);
    running = round()
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, `${name} failed`))
      .finally(() => {
        running = undefined;
        soon(idleMs);
      });
  }

  soon(0);
  return {
    soon,
    /** No round starts any more; the one running ends. */
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * The worker's webhook sender (docs/decisions.md "Webhooks"), two rounds that do not wait for each
 * other: the fan-out turns the outbox's new committed events into deliveries, at once after a commit
 * of events in this process (`kick`) and every IDLE_ROUND_MS; the sender records the tries that ended
 * (in one statement) and takes due deliveries, each endpoint up to its share of tries in flight (one
 * probe at a time while it fails: EndpointBreakers), and posts them, each try on its own. A try that ends, or a fan-out that wrote deliveries, brings the
 * sender's next round forward. A slow endpoint never holds a round, nor indexing: this reads the
 * outbox and is never on a write's path.
 */
export function startWebhookDelivery({ db, logger, allowPrivate, timeoutMs, queueBound }: WebhookDeliveryOptions): {
  /** Events were just committed in this process: fan them out now rather than at the next idle round. */
  kick: () => void;
  stop: () => Promise<void>;
} {
  const inFlight = new Map<string, Promise<void>>();
  const perEndpoint = new Map<number, number>();
  const breakers = new EndpointBreakers();
  /** Tries that ended and are not recorded yet: the next round records them together. */
  let ended: (EndedTry & { endpointId: number })[] = [];

  const send = async (delivery: ClaimedDelivery) => {
    const outcome = await postWebhook({ url: delivery.url, secret: delivery.secret, eventId: eventWireId(delivery.eventId), body: delivery.body, timeoutMs, allowPrivate });
    breakers.noteTry(delivery.endpointId, isDelivered(outcome), performance.now());
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

  const sender = repeatRounds("webhook delivery round", { db, logger, idleMs: IDLE_ROUND_MS }, async () => {
    await recordEnded();
    const free = MAX_IN_FLIGHT - inFlight.size;
    if (free <= 0) return;
    const now = performance.now();
    const rooms = new Map(
      [...new Set([...perEndpoint.keys(), ...breakers.failingEndpoints()])].map((endpointId) => [
        endpointId,
        breakers.room(endpointId, { inFlight: perEndpoint.get(endpointId) ?? 0, share: MAX_IN_FLIGHT_PER_ENDPOINT, now }),
      ]),
    );
    const claimed = await claimWebhookDeliveries(db, { limit: free, share: MAX_IN_FLIGHT_PER_ENDPOINT, rooms, leaseMs: timeoutMs + LEASE_MARGIN_MS });
    for (const delivery of claimed) {
      perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
      const running = send(delivery).finally(() => {
        inFlight.delete(delivery.id);
        const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left === 0) perEndpoint.delete(delivery.endpointId);
        else perEndpoint.set(delivery.endpointId, left);
        sender.soon(BUSY_ROUND_MS);
      });
      inFlight.set(delivery.id, running);
    }
  });

  const fanOut = repeatRounds("webhook fan-out round", { db, logger, idleMs: IDLE_ROUND_MS }, async () => {
    while ((await fanOutWebhookEvents(db, { queueBound })) > 0) sender.soon(0);
  });

  return {
    kick: () => fanOut.soon(0),
    // Tries in flight finish (each is bounded by the timeout) and are recorded; none is started.
    stop: async () => {
      await Promise.all([fanOut.stop(), sender.stop()]);
      await Promise.all(inFlight.values());
      await recordEnded();
    },
  };
}
