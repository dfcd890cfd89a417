// The operations endpoints and ingestion's admission control, through the production server in a
// child process (decisions.md "Bulk ingestion, operations, client", "Limits and overload"; issue 12).
import net from "node:net";
import { createApiKey, recordWorkerHeartbeat } from "@svc/core";
import { createTestJobQueue, ingestTestDocument, postTestIngestion, testIngestionBody, type TestJobQueue } from "@svc/core/testing";
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

/** A raw connection to the server that reads one HTTP/1.1 response at a time (Content-Length bodies). */
interface RawConnection {
  write(text: string): void;
  /** The next response's status line, headers (lower-cased) and body; null when the server closed first. */
  nextResponse(): Promise<{ status: number; headers: Record<string, string>; body: string } | null>;
  destroy(): void;
}

function openRawConnection(base: string): Promise<RawConnection> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let buffered = "";
    let closed = false;
    let wake: (() => void) | undefined;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      wake?.();
    });
    socket.on("close", () => {
      closed = true;
      wake?.();
    });
    socket.on("error", () => undefined);
    socket.once("connect", () =>
      resolve({
        write: (text) => socket.write(text),
        destroy: () => socket.destroy(),
        async nextResponse() {
          for (;;) {
            const headerEnd = buffered.indexOf("\r\n\r\n");
            if (headerEnd >= 0) {
              const [statusLine = "", ...lines] = buffered.slice(0, headerEnd).split("\r\n");
              const headers = Object.fromEntries(
                lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
              );
              const length = Number(headers["content-length"] ?? 0);
              if (buffered.length >= headerEnd + 4 + length) {
                const body = buffered.slice(headerEnd + 4, headerEnd + 4 + length);
                buffered = buffered.slice(headerEnd + 4 + length);
                return { status: Number(statusLine.split(" ")[1]), headers, body };
              }
            }
            if (closed) return null;
            await new Promise<void>((wakeUp) => (wake = wakeUp));
          }
        },
      }),
    );
    socket.once("error", reject);
  });
}

/** The head of an authorized ingestion of `body`, sent by hand on a raw connection. */
function ingestionHead(app: { server: ProductionServer; adminKey: string }, body: string, { expectContinue = false } = {}): string {
  const { hostname } = new URL(app.server.base);
  return (
    `POST /api/svc-api/ingestion HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${app.adminKey}\r\n` +
    `content-type: application/json\r\ncontent-length: ${body.length}\r\n${expectContinue ? "expect: 100-continue\r\n" : ""}\r\n`
  );
}

/**
 * An authorized ingestion whose body stops halfway: it stays in flight until the socket closes. It
 * sends `Expect: 100-continue`, which the server answers only once it has admitted the request, so
 * when this resolves the request counts in flight. (Without it nothing says when: a request sent
 * later on a kept-alive connection is often read first, and takes the slot.) A refusal is retried.
 */
function stalledIngestion(app: { server: ProductionServer; adminKey: string }): Promise<net.Socket> {
  const { hostname, port } = new URL(app.server.base);
  const body = JSON.stringify(testIngestionBody({ id: "stalled" }));
  const attempt = () =>
    new Promise<net.Socket | undefined>((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(ingestionHead(app, body, { expectContinue: true })));
      let received = "";
      const onData = (chunk: string) => {
        received += chunk;
        if (!received.includes("\r\n\r\n")) return;
        socket.off("data", onData);
        if (received.startsWith("HTTP/1.1 100 ")) {
          socket.write(body.slice(0, 10));
          resolve(socket);
        } else {
          socket.destroy();
          resolve(undefined);
        }
      };
      socket.setEncoding("latin1");
      socket.on("data", onData);
      socket.on("error", reject);
    });
  return waitFor("an admitted stalled ingestion", attempt);
}

function ingest(app: { server: ProductionServer; adminKey: string }, id: string): Promise<Response> {
  return postTestIngestion(app.server.base, app.adminKey, testIngestionBody({ id }));
}

/** Ingests `id` again and again until the answer is a 429, and returns that answer. */
function refusedIngestion(app: { server: ProductionServer; adminKey: string }, id: string, timeoutMs = 30_000): Promise<Response> {
  return waitFor(
    `a 429 for ${id}`,
    async () => {
      const response = await ingest(app, id);
      return response.status === 429 ? response : undefined;
    },
    { timeoutMs },
  );
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

  it("answers 429 with Retry-After and a detail at once, while other routes still answer; 200 again once requests finish", async () => {
    const stalled = [await stalledIngestion(app), await stalledIngestion(app)];
    const refused = await refusedIngestion(app, "refused");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ detail: "Too many requests in flight; try again later" });
    expect((await fetch(`${app.server.base}/api/health`)).status).toBe(200);
    expect(await app.queue.db.document.count({ where: { id: "refused" } })).toBe(0);

    for (const socket of stalled) socket.destroy();
    await waitFor("a 200 after the stalled requests ended", async () => ((await ingest(app, "accepted")).status === 200 ? true : undefined));
    expect(await app.queue.db.document.count({ where: { id: "accepted" } })).toBe(1);
  });

  it("refuses before the body is sent, and keeps the connection: its next request is answered on the same socket", async () => {
    const stalled = [await stalledIngestion(app), await stalledIngestion(app)];
    try {
      const { hostname } = new URL(app.server.base);
      const body = JSON.stringify(testIngestionBody({ id: "refused-early" }));
      const connection = await openRawConnection(app.server.base);
      const head = ingestionHead(app, body);
      // Once the two stalled requests are in flight, ingestion is refused.
      await waitFor("a 429", async () => ((await ingest(app, "probe")).status === 429 ? true : undefined));
      connection.write(head);
      const refused = await connection.nextResponse();
      expect(refused?.status).toBe(429);
      if (!refused) return;
      expect(refused.headers["retry-after"]).toBe("1");
      expect(refused.headers.connection).not.toBe("close");
      expect(JSON.parse(refused.body)).toEqual({ detail: "Too many requests in flight; try again later" });

      // The body arrives after the answer; the server discards it, then serves the next request.
      connection.write(body);
      connection.write(`GET /api/health HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
      const health = await connection.nextResponse();
      expect(health?.status).toBe(200);
      connection.destroy();
      expect(await app.queue.db.document.count({ where: { id: "refused-early" } })).toBe(0);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });

  it("refuses a request that expects 100 Continue without asking for its body, and closes that connection", async () => {
    const stalled = [await stalledIngestion(app), await stalledIngestion(app)];
    try {
      const connection = await openRawConnection(app.server.base);
      connection.write(ingestionHead(app, JSON.stringify(testIngestionBody({ id: "refused-continue" })), { expectContinue: true }));
      // The first answer is the refusal itself, not a 100 Continue.
      const refused = await connection.nextResponse();
      expect(refused?.status).toBe(429);
      expect(refused?.headers["retry-after"]).toBe("1");
      expect(refused?.headers.connection).toBe("close");
      expect(await connection.nextResponse()).toBeNull();
      expect(await app.queue.db.document.count({ where: { id: "refused-continue" } })).toBe(0);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });
});

describe("ingestion while admitted requests are slower than SVC_ADMISSION_TARGET_MS", () => {
  // Every ingestion takes longer than 1 ms, so each window with one finished shrinks the limit.
  const app = useServer({ SVC_MAX_IN_FLIGHT: "64", SVC_ADMISSION_TARGET_MS: "1", SVC_BODY_IDLE_TIMEOUT_MS: "60000" });

  it("lowers the in-flight limit from SVC_MAX_IN_FLIGHT to its floor of 4: with four in flight the next is refused; 200 once they end", async () => {
    const stalled = [];
    for (let index = 0; index < 4; index += 1) stalled.push(await stalledIngestion(app));
    try {
      const refused = await refusedIngestion(app, "probe", 60_000);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toEqual({ detail: "Too many requests in flight; try again later" });
    } finally {
      for (const socket of stalled) socket.destroy();
    }
    await waitFor("a 200 once the stalled requests ended", async () => ((await ingest(app, "accepted")).status === 200 ? true : undefined));
  });
});

describe("connections past SVC_MAX_CONNECTIONS", () => {
  const app = useServer({ SVC_MAX_CONNECTIONS: "2" });

  it("closes a connection past the limit unanswered, and takes new ones once others closed", async () => {
    const { hostname } = new URL(app.server.base);
    const health = `GET /api/health HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`;
    // Each connection stays open after its answer (keep-alive); one the test client's pool still
    // holds may count too, so the limit shows within three.
    const held: RawConnection[] = [];
    let unanswered = false;
    for (let index = 0; index < 3 && !unanswered; index += 1) {
      const connection = await openRawConnection(app.server.base);
      held.push(connection);
      connection.write(health);
      const response = await connection.nextResponse();
      if (response) expect(response.status).toBe(200);
      else unanswered = true;
    }
    expect(unanswered).toBe(true);

    for (const connection of held) connection.destroy();
    await waitFor("a new connection to be answered", async () => {
      const connection = await openRawConnection(app.server.base);
      connection.write(health);
      const response = await connection.nextResponse();
      connection.destroy();
      return response?.status === 200 ? true : undefined;
    });
  });
});

describe("ingestion while the event loop lags past SVC_MAX_EVENT_LOOP_DELAY_MS", () => {
  const app = useServer({ SVC_MAX_EVENT_LOOP_DELAY_MS: "100", SVC_BODY_IDLE_TIMEOUT_MS: "120000" });

  /** A ~20 MB body of ten million numbers: parsing it holds the server's event loop for a while. */
  const stallingBody = `{"junk":[${"0,".repeat(10_000_000)}0]}`;
  async function sendStallingBody(): Promise<void> {
    const response = await postTestIngestion(app.server.base, app.adminKey, stallingBody);
    await response.arrayBuffer();
  }

  it("answers 429 'busy' with Retry-After after a stall while a request is in flight, health still answers; 200 again once calm", async () => {
    const stalled = await stalledIngestion(app);
    const refused = await waitFor(
      "a 429 after the server's event loop stalled",
      async () => {
        await sendStallingBody();
        const response = await ingest(app, "after-stall");
        return response.status === 429 ? response : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ detail: "The server is busy; try again later" });
    expect((await fetch(`${app.server.base}/api/health`)).status).toBe(200);
    stalled.destroy();

    await waitFor("a 200 once the loop is calm", async () => ((await ingest(app, "calm")).status === 200 ? true : undefined), {
      timeoutMs: 90_000,
    });
    expect(await app.queue.db.document.count({ where: { id: "calm" } })).toBe(1);
    // The case's own limit covers its two waits: 20 MB bodies are slow to send and parse on a loaded
    // machine, and vitest's 30 s default cut it off while its waits still had time.
  }, 200_000);
});

describe("ingestion past SVC_MAX_QUEUE_DEPTH", () => {
  const app = useServer({ SVC_MAX_QUEUE_DEPTH: "3" });

  it("answers 429 with Retry-After while the indexing queue holds more jobs than the limit, 200 once a worker drained it", async () => {
    for (let index = 0; index < 5; index += 1) await ingestTestDocument(app.queue, { id: `queued-${index}` });
    const refused = await refusedIngestion(app, "refused", 90_000);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({ detail: "The indexing queue is full; try again later" });
    // Bulk ingestion sheds load by the same rule.
    const refusedBatch = await fetch(`${app.server.base}/api/svc-api/ingestion/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ documents: [testIngestionBody({ id: "refused-in-batch" })] }),
    });
    expect(refusedBatch.status).toBe(429);
    expect(refusedBatch.headers.get("retry-after")).toBe("5");
    expect(await refusedBatch.json()).toEqual({ detail: "The indexing queue is full; try again later" });
    expect(await app.queue.db.document.count({ where: { id: "refused-in-batch" } })).toBe(0);

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
