// The operations endpoints and ingestion's admission control, through the production server in a
// child process (decisions.md "Operations endpoints", "Limits and overload"; issue 12).
import net from "node:net";
import { createApiKey, recordWorkerHeartbeat } from "@svc/core";
import { createTestJobQueue, ingestTestDocument, testIngestionBody, type TestJobQueue } from "@svc/core/testing";
import { findFreePort, waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "./production-server";
import { startTestWorker } from "./worker";

/** A database with its job queue, an admin key and the production server on it, with these settings. */
function useServer(env: Record<string, string> = {}) {
  const app = {} as { queue: TestJobQueue; server: ProductionServer; adminKey: string };
  beforeAll(async () => {
    app.queue = await createTestJobQueue();
    app.adminKey = (await createApiKey({ db: app.queue.db, name: "ops admin", role: "admin" })).key;
    app.server = await startProductionServer({ databaseUrl: app.queue.databaseUrl, env });
  });
  afterAll(async () => {
    await app.server?.stop();
    await app.queue?.close();
  });
  return app;
}

function ingest(app: { server: ProductionServer; adminKey: string }, id: string): Promise<Response> {
  return fetch(`${app.server.base}/api/svc-api/ingestion`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(testIngestionBody({ id })),
  });
}

describe("GET /api/health", () => {
  let server: ProductionServer;
  beforeAll(async () => {
    // Nothing listens on this port: every database call would fail.
    const closedPort = await findFreePort();
    server = await startProductionServer({ databaseUrl: `postgres://postgres@127.0.0.1:${closedPort}/svc_absent` });
  });
  afterAll(() => server?.stop());

  it("answers 200 without a key while PostgreSQL is unreachable; /api/ready answers 503 naming the database", async () => {
    const health = await fetch(`${server.base}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", checks: { process: { status: "ok" } } });

    const ready = await fetch(`${server.base}/api/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: "unavailable",
      checks: { database: { status: "unavailable", detail: "Database unavailable" } },
    });
  });
});

describe("GET /api/ready", () => {
  const app = useServer();

  it("answers 503 until a worker's heartbeat is seen within 60 s, then 200, and 503 again once it is old", async () => {
    const first = await fetch(`${app.server.base}/api/ready`);
    expect(first.status).toBe(503);
    expect(await first.json()).toEqual({
      status: "unavailable",
      checks: {
        database: { status: "ok" },
        migrations: { status: "ok" },
        worker: { status: "unavailable", detail: "No worker heartbeat in the last 60 s" },
      },
    });

    // What a running worker does every SVC_WORKER_HEARTBEAT_SECONDS (the worker's own test runs the process).
    const workerId = "ops-test-worker";
    await recordWorkerHeartbeat({ db: app.queue.db, workerId, hostname: "test", pid: process.pid, startedAt: new Date() });
    const ready = await fetch(`${app.server.base}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ok",
      checks: { database: { status: "ok" }, migrations: { status: "ok" }, worker: { status: "ok" } },
    });

    await app.queue.db.$executeRaw`UPDATE worker_heartbeat SET seen_at = now() - interval '61 seconds' WHERE worker_id = ${workerId}`;
    expect((await fetch(`${app.server.base}/api/ready`)).status).toBe(503);
  });
});

describe("ingestion past SVC_MAX_IN_FLIGHT", () => {
  const app = useServer({ SVC_MAX_IN_FLIGHT: "2", SVC_BODY_IDLE_TIMEOUT_MS: "30000" });

  /** An authorized ingestion whose body stops halfway: it stays in flight until the socket closes. */
  function stalledIngestion(): Promise<net.Socket> {
    const { hostname, port } = new URL(app.server.base);
    const body = JSON.stringify(testIngestionBody({ id: "stalled" }));
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port) }, () => {
        socket.write(
          `POST /api/svc-api/ingestion HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${app.adminKey}\r\n` +
            `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        );
        resolve(socket);
      });
      socket.on("error", reject);
    });
  }

  it("answers 429 with Retry-After and a detail at once, while other routes still answer; 200 again once requests finish", async () => {
    const stalled = [await stalledIngestion(), await stalledIngestion()];
    const refused = await waitFor("a 429", async () => {
      const response = await ingest(app, "refused");
      return response.status === 429 ? response : undefined;
    });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ detail: "Too many requests in flight; try again later" });
    expect((await fetch(`${app.server.base}/api/health`)).status).toBe(200);
    expect(await app.queue.db.document.count({ where: { id: "refused" } })).toBe(0);

    for (const socket of stalled) socket.destroy();
    await waitFor("a 200 after the stalled requests ended", async () => ((await ingest(app, "accepted")).status === 200 ? true : undefined));
    expect(await app.queue.db.document.count({ where: { id: "accepted" } })).toBe(1);
  });
});

describe("ingestion past SVC_MAX_QUEUE_DEPTH", () => {
  const app = useServer({ SVC_MAX_QUEUE_DEPTH: "3" });

  it("answers 429 with Retry-After while the indexing queue holds more jobs than the limit, 200 once a worker drained it", async () => {
    for (let index = 0; index < 5; index += 1) await ingestTestDocument(app.queue, { id: `queued-${index}` });
    const refused = await waitFor(
      "a 429",
      async () => {
        const response = await ingest(app, "refused");
        return response.status === 429 ? response : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({ detail: "The indexing queue is full; try again later" });

    const worker = await startTestWorker({ db: app.queue.db, databaseUrl: app.queue.databaseUrl });
    try {
      await waitFor("a 200 once the queue drained", async () => ((await ingest(app, "accepted")).status === 200 ? true : undefined), {
        timeoutMs: 90_000,
      });
    } finally {
      await worker.stop();
    }
    expect(await app.queue.db.document.count({ where: { id: "accepted" } })).toBe(1);
  });
});
