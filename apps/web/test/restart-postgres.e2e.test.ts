import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createApiKey, prepareDatabase } from "@svc/core";
import { postTestIngestion, testIngestionBody } from "@svc/core/testing";
import { createDb, querySql } from "@svc/db";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "@svc/db/embedded";
import { waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "./production-server";

// The shared PostgreSQL cannot be restarted from a test: this file runs its own, throwaway.
const POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
const POOL_SIZE = 4;
/** The web process's pool, pg-boss's producer pool (2, apps/web/server/services.ts) and the key cache's listener. */
const MAX_WEB_CONNECTIONS = POOL_SIZE + 2 + 1;
const LOAD_REQUESTS_AT_MOST = 20_000;

let dataDir: string;
let server: EmbeddedPostgresServer | undefined;
let web: ProductionServer | undefined;
let key: string;

/** One ingestion through the production server at `base`, with the file's admin key; the answer as it is. */
function ingestAt(base: string, id: string): Promise<Response> {
  return postTestIngestion(base, key, testIngestionBody({ id, title: id }));
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-web-restart-pg-"));
  server = await startEmbeddedPostgres({ dataDir, postgresFlags: POSTGRES_FLAGS });
  await prepareDatabase(server.databaseUrl);
  const db = createDb({ databaseUrl: server.databaseUrl, poolSize: 1 });
  try {
    key = (await createApiKey({ db, name: "restart test", role: "admin" })).key;
  } finally {
    await db.$disconnect();
  }
  web = await startProductionServer({ databaseUrl: server.databaseUrl, env: { SVC_DB_POOL_SIZE: String(POOL_SIZE) } });
});
afterAll(async () => {
  await web?.stop();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Connections the web process holds, told apart by the application names it gives them. */
async function webConnections(databaseUrl: string): Promise<{ total: number; listeners: number }> {
  const db = createDb({ databaseUrl, poolSize: 1 });
  try {
    const [row] = await querySql<{ total: number; listeners: number }>(db, {
      text: `SELECT count(*)::int AS total, count(*) FILTER (WHERE application_name = 'svc-web-listen')::int AS listeners
               FROM pg_stat_activity WHERE application_name IN ('svc-web', 'svc-web-listen', 'svc-producer')`,
    });
    return row ?? { total: 0, listeners: 0 };
  } finally {
    await db.$disconnect();
  }
}

describe("the web process across PostgreSQL restarts", () => {
  it("answers 503 with Retry-After while the database is down, 200 again after, and keeps its connections bounded", async () => {
    if (!server || !web) throw new Error("not started");
    const { databaseUrl, port } = server;
    const { base } = web;
    const ingest = (id: string) => ingestAt(base, id);

    // Light load throughout: one client ingesting back to back, every status counted.
    const statuses = new Map<number, number>();
    let loadRunning = true;
    const load = (async () => {
      for (let index = 0; loadRunning && index < LOAD_REQUESTS_AT_MOST; index++) {
        const response = await ingest(`load-${index}`);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    })();

    try {
      for (const round of [1, 2]) {
        await server.stop();
        server = undefined;

        const unavailable = await waitFor(`a 503 in outage ${round}`, async () => {
          const response = await ingest(`outage-${round}`);
          return response.status === 503 ? response : undefined;
        });
        expect(Number(unavailable.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await unavailable.json()).toEqual({ detail: "Database unavailable" });
        const listing = await fetch(`${base}/api/manage/admin/connector/indexing-status`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: "{}",
        });
        expect(listing.status).toBe(503);
        expect(listing.headers.get("retry-after")).not.toBeNull();
        // The console's calls: tRPC's SERVICE_UNAVAILABLE, with the table's code for the console's banner.
        const consoleCall = await fetch(`${base}/api/trpc/session.me`, { headers: { cookie: "svc_session=some-session" } });
        expect(consoleCall.status).toBe(503);
        const consoleError = ((await consoleCall.json()) as { error: { json: { message: string; data: Record<string, unknown> } } }).error.json;
        expect(consoleError.message).toBe("Database unavailable");
        expect(consoleError.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", appCode: "DATABASE_UNAVAILABLE" });

        server = await startEmbeddedPostgres({ dataDir, port, postgresFlags: POSTGRES_FLAGS });
        const healed = await waitFor(`a 200 after restart ${round}`, async () => {
          const response = await ingest(`after-${round}`);
          return response.status === 200 ? response : undefined;
        });
        expect(await healed.json()).toEqual({ document_id: `after-${round}`, already_existed: false });

        // The key cache's listener is back (one connection), and the total stays within the pools.
        const connections = await waitFor("the key cache's listener to reconnect", async () => {
          const counted = await webConnections(databaseUrl);
          return counted.listeners === 1 ? counted : undefined;
        });
        expect(connections.total).toBeLessThanOrEqual(MAX_WEB_CONNECTIONS);
      }
    } finally {
      loadRunning = false;
      await load;
    }

    // Under load through both outages: successes and 503s, never a 500.
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(web.output()).not.toMatch(/EMFILE|heap out of memory/);
  }, 120_000);

  it("starts while the database is down, answers 503 meanwhile, and serves once it is up, within the same bound", async () => {
    if (!server || !web) throw new Error("not started");
    const { databaseUrl, port } = server;
    await web.stop();
    web = undefined;
    await server.stop();
    server = undefined;

    web = await startProductionServer({ databaseUrl, env: { SVC_DB_POOL_SIZE: String(POOL_SIZE) } });
    const base = web.base;
    const ingest = (id: string) => ingestAt(base, id);
    // Every request retries opening the services; none may leave connections behind for later.
    for (let attempt = 0; attempt < 30; attempt++) {
      const response = await ingest(`cold-${attempt}`);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).not.toBeNull();
    }

    server = await startEmbeddedPostgres({ dataDir, port, postgresFlags: POSTGRES_FLAGS });
    await waitFor("a 200 once the database is up", async () => ((await ingest("cold-after")).status === 200 ? true : undefined));
    const connections = await waitFor("the key cache's listener", async () => {
      const counted = await webConnections(databaseUrl);
      return counted.listeners === 1 ? counted : undefined;
    });
    expect(connections.total).toBeLessThanOrEqual(MAX_WEB_CONNECTIONS);
  }, 120_000);
});
