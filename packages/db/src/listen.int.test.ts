import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "./embedded";
import { listenToChannel, retryDelayMs, type ChannelListener } from "./listen";
import { waitFor } from "./testing";

// The shared PostgreSQL cannot be restarted from a test: this file runs its own, throwaway.
const POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off"];
const APPLICATION_NAME = "svc-listen-test";
const CHANNEL = "svc_listen_test";

let dataDir: string;
let server: EmbeddedPostgresServer | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-listen-"));
  server = await startEmbeddedPostgres({ dataDir, postgresFlags: POSTGRES_FLAGS });
});
afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs `statement` on a connection of its own (the listener's is not ours to use). */
async function query<Row extends pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function listenerConnections(databaseUrl: string): Promise<number> {
  const rows = await query<{ count: string }>(databaseUrl, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", [APPLICATION_NAME]);
  return Number(rows[0]?.count);
}

describe("listenToChannel across PostgreSQL restarts", () => {
  it("keeps exactly one connection, reports when it is down, and delivers notifications again after each restart", async () => {
    if (!server) throw new Error("no server");
    const { databaseUrl, port } = server;
    const received: string[] = [];
    const liveChanges: boolean[] = [];
    let listener: ChannelListener | undefined;
    try {
      listener = await listenToChannel({
        databaseUrl,
        channel: CHANNEL,
        applicationName: APPLICATION_NAME,
        onNotification: (payload) => received.push(payload),
        onLive: (live) => liveChanges.push(live),
        minRetryDelayMs: 20,
        maxRetryDelayMs: 200,
      });
      expect(liveChanges).toEqual([true]);

      for (const round of [1, 2]) {
        await server.stop();
        server = undefined;
        await waitFor("the listener to report it is down", () => (liveChanges.at(-1) === false ? true : undefined));
        server = await startEmbeddedPostgres({ dataDir, port, postgresFlags: POSTGRES_FLAGS });
        await waitFor("the listener to be live again", () => (liveChanges.at(-1) === true ? true : undefined), { timeoutMs: 10_000 });

        const payload = `after restart ${round}`;
        await waitFor(
          `the notification "${payload}"`,
          async () => {
            await query(databaseUrl, "SELECT pg_notify($1, $2)", [CHANNEL, payload]);
            return received.includes(payload) ? true : undefined;
          },
          { timeoutMs: 10_000 },
        );
        expect(await listenerConnections(databaseUrl)).toBe(1);
      }
      expect(liveChanges).toEqual([true, false, true, false, true]);
    } finally {
      await listener?.close();
    }
    await waitFor("the listener's connection to close", async () => ((await listenerConnections(databaseUrl)) === 0 ? true : undefined));
  }, 60_000);

  it("waits a jittered delay that doubles with each failure up to the cap", () => {
    for (let trial = 0; trial < 200; trial++) {
      expect(retryDelayMs(0, 100, 5_000)).toBeGreaterThanOrEqual(50);
      expect(retryDelayMs(0, 100, 5_000)).toBeLessThanOrEqual(100);
      expect(retryDelayMs(3, 100, 5_000)).toBeLessThanOrEqual(800);
      expect(retryDelayMs(40, 100, 5_000)).toBeLessThanOrEqual(5_000);
    }
  });
});
