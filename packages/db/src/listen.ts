import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { DB_CONNECT_TIMEOUT_MS } from "./client";

export interface ChannelListener {
  close(): Promise<void>;
}

export interface ListenToChannelOptions {
  databaseUrl: string;
  channel: string;
  onNotification: (payload: string) => void;
  onLive: (live: boolean) => void;
  /** Shown in pg_stat_activity, so an operator can tell this connection from the pool's. */
  applicationName?: string;
  /** Backoff between attempts: the first delay, doubled on each failure up to the cap; jittered. */
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * LISTENs to a PostgreSQL channel on a connection of its own, reconnecting whenever that connection
 * drops. `onLive(false)` is called the moment notifications may be missed, and `onLive(true)` once
 * they are flowing again: callers that cache must not trust the cache between.
 *
 * One loop owns the connection: it connects, waits until the connection is lost, and tries again
 * after a capped, jittered exponential delay. Client events only wake that loop, never start another,
 * so a failure reported twice by pg (a failed connect both rejects and emits `end`) still costs one
 * attempt, and at most one connection of this listener exists at any time. (pg-listen 1.7.0 was
 * considered: it reconnects from both `error` and `end`, and after a reconnect never re-issues LISTEN.)
 */
export async function listenToChannel({
  databaseUrl,
  channel,
  onNotification,
  onLive,
  applicationName,
  minRetryDelayMs = 100,
  maxRetryDelayMs = 5_000,
}: ListenToChannelOptions): Promise<ChannelListener> {
  const stopping = new AbortController();
  let current: pg.Client | undefined;
  let firstAttempt: () => void = () => undefined;
  const firstAttemptDone = new Promise<void>((resolve) => (firstAttempt = resolve));

  /** Connects and LISTENs; resolves when that connection is gone (or `close()` was called). */
  const listenOnce = async (): Promise<boolean> => {
    // keepAlive: a connection whose peer vanished without a FIN (a network cut) still ends, eventually.
    // The deadlines: a server that does not answer (decisions: "Limits and overload") is tried again later.
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: applicationName,
      keepAlive: true,
      connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
      query_timeout: DB_CONNECT_TIMEOUT_MS,
    });
    current = client;
    let connectionLost: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => (connectionLost = resolve));
    client.once("end", connectionLost);
    client.on("error", connectionLost);
    stopping.signal.addEventListener("abort", connectionLost);
    client.on("notification", (message) => {
      if (message.channel === channel) onNotification(message.payload ?? "");
    });
    let listened = false;
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      listened = !stopping.signal.aborted;
    } catch {
      // The same failure ends the client too; `lost` settles from that or right below.
    }
    if (listened) {
      onLive(true);
      firstAttempt();
      await lost;
      onLive(false);
    }
    // Whatever state the client is in, its socket is closed before the next one opens.
    await client.end().catch(() => undefined);
    stopping.signal.removeEventListener("abort", connectionLost);
    current = undefined;
    return listened;
  };

  const loop = async () => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      const wasLive = await listenOnce();
      firstAttempt();
      failures = wasLive ? 0 : failures + 1;
      if (stopping.signal.aborted) break;
      await delay(retryDelayMs(failures, minRetryDelayMs, maxRetryDelayMs), undefined, { signal: stopping.signal, ref: false }).catch(
        () => undefined,
      );
    }
  };

  const running = loop();
  await firstAttemptDone;
  return {
    close: async () => {
      stopping.abort();
      await current?.end().catch(() => undefined);
      await running;
    },
  };
}

/**
 * Full jitter over a capped exponential: listeners of many processes that lost the same server do not
 * come back in step. After a connection that worked (`failures` 0), the first retry is quick.
 */
export function retryDelayMs(failures: number, minMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(failures, 30));
  return minMs / 2 + Math.random() * (ceiling - minMs / 2);
}
