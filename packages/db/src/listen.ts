import pg from "pg";

export interface ChannelListener {
  close(): Promise<void>;
}

/**
 * LISTENs to a PostgreSQL channel on a connection of its own, reconnecting (with backoff) whenever
 * that connection drops. `onLive(false)` is called the moment notifications may be missed, and
 * `onLive(true)` once they are flowing again: callers that cache must not trust the cache between.
 */
export async function listenToChannel({
  databaseUrl,
  channel,
  onNotification,
  onLive,
}: {
  databaseUrl: string;
  channel: string;
  onNotification: (payload: string) => void;
  onLive: (live: boolean) => void;
}): Promise<ChannelListener> {
  let closed = false;
  let client: pg.Client | undefined;
  let retryDelayMs = 100;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on("notification", (message) => {
      if (message.channel === channel) onNotification(message.payload ?? "");
    });
    next.on("error", () => undefined); // followed by "end", handled there
    next.on("end", () => {
      onLive(false);
      if (!closed) scheduleReconnect();
    });
    await next.connect();
    await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
    client = next;
    retryDelayMs = 100;
    onLive(true);
  };

  const scheduleReconnect = () => {
    setTimeout(() => {
      if (closed) return;
      connect().catch(() => {
        retryDelayMs = Math.min(retryDelayMs * 2, 5_000);
        scheduleReconnect();
      });
    }, retryDelayMs).unref();
  };

  try {
    await connect();
  } catch {
    onLive(false);
    scheduleReconnect();
  }
  return {
    close: async () => {
      closed = true;
      onLive(false);
      await client?.end().catch(() => undefined);
    },
  };
}
