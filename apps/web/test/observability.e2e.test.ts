// Logs and metrics of the running production server and worker, asserted by content: the server's
// stdout parsed as JSON lines, GET /api/metrics scraped after documents were ingested and indexed by
// the built worker, and its numbers checked against the database.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKey } from "@svc/core";
import { testIngestionBody } from "@svc/core/testing";
import { createTestDatabase, waitFor, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "./production-server";
import { parseMetrics, sample, type Sample } from "./prometheus";

const workerDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../worker/dist");
const METRICS_TOKEN = "metrics-token-for-the-e2e-test";
const BODY_MARKER = "body-text-that-must-never-be-logged";
const SLOW = { timeoutMs: 60_000 };

let database: TestDatabase;
let server: ProductionServer;
let worker: ChildProcess;
let maintenance: ChildProcess;
let workerOutput = "";
let adminKey: string;
let curatorKey: string;

beforeAll(async () => {
  database = await createTestDatabase();
  adminKey = (await createApiKey({ db: database.db, name: "observability admin", role: "admin" })).key;
  curatorKey = (await createApiKey({ db: database.db, name: "observability curator", role: "curator" })).key;
  server = await startProductionServer({ databaseUrl: database.databaseUrl, env: { SVC_METRICS_TOKEN: METRICS_TOKEN, LOG_LEVEL: "info" } });
  // As `svc start` runs them: the worker, and the index maintenance process doing the merges.
  const env = { ...process.env, DATABASE_URL: database.databaseUrl, LOG_LEVEL: "info", SVC_WORKER_HEARTBEAT_SECONDS: "2" };
  worker = spawn(process.execPath, [path.join(workerDist, "main.js")], { env: { ...env, SVC_WORKER_MAINTAINS_INDEX: "false" }, stdio: ["ignore", "pipe", "pipe"] });
  maintenance = spawn(process.execPath, [path.join(workerDist, "maintain.js")], { env, stdio: ["ignore", "pipe", "pipe"] });
  for (const child of [worker, maintenance]) {
    child.stdout?.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
  }
}, 120_000);

afterAll(async () => {
  for (const child of [worker, maintenance]) {
    if (!child || child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  await server?.stop();
  await database?.drop();
});

type LogLine = Record<string, unknown>;

/** The JSON lines a process printed (Next.js prints a plain-text notice or two of its own at start). */
function logLines(output: string): LogLine[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

function request(pathname: string, { key, method = "GET", body, headers = {} }: { key?: string | null; method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key ?? adminKey}` };
  return fetch(`${server.base}${pathname}`, {
    method,
    headers: { ...auth, ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function scrape(): Promise<Sample[]> {
  const response = await request("/api/metrics", { key: METRICS_TOKEN });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  return parseMetrics(await response.text());
}

describe("request logs", () => {
  it("prints one JSON line per request with its route pattern, status, duration and id, never a key or a body", async () => {
    const traced = await request("/api/svc-api/ingestion/no%2Fsuch-document", { headers: { "x-request-id": "trace-abc.123" } });
    expect(traced.status).toBe(404);
    expect(traced.headers.get("x-request-id")).toBe("trace-abc.123");

    // An id that is not short and plain is replaced by a fresh one, which the response names.
    const replaced = await request("/api/health", { key: null, headers: { "x-request-id": `bad id ${"x".repeat(200)}` } });
    const freshId = replaced.headers.get("x-request-id");
    expect(freshId).toMatch(/^[0-9a-f-]{36}$/);

    const ingested = await request("/api/svc-api/ingestion", {
      method: "POST",
      body: testIngestionBody({ id: "logged-doc", text: BODY_MARKER }),
      headers: { "x-request-id": "trace-ingest" },
    });
    expect(ingested.status).toBe(200);

    const byId = (id: string) => logLines(server.output()).find((line) => line.request_id === id);
    const line = await waitFor("the request's log line", () => byId("trace-abc.123"), { ...SLOW, describe: () => server.output() });
    expect(line).toMatchObject({ level: 30, name: "web", msg: "request", method: "GET", route: "/api/svc-api/ingestion/{document_id}", status: 404 });
    expect(typeof line.duration_ms).toBe("number");
    expect(Object.keys(line).sort()).toEqual(["duration_ms", "level", "method", "msg", "name", "pid", "request_id", "route", "status", "time"]);
    await waitFor("the other lines", () => byId(freshId ?? "") && byId("trace-ingest"), { ...SLOW, describe: () => server.output() });
    expect(byId(freshId ?? "")).toMatchObject({ route: "/api/health", status: 200 });
    expect(byId("trace-ingest")).toMatchObject({ method: "POST", route: "/api/svc-api/ingestion", status: 200 });

    // Nothing the client sent beyond method and path reaches the log.
    expect(server.output()).not.toContain(adminKey);
    expect(server.output()).not.toContain(BODY_MARKER);
  }, 120_000);

  it("labels paths no route takes as unmatched, and the console's pages as next", async () => {
    expect((await request("/api/no/such/route", { headers: { "x-request-id": "trace-unmatched" } })).status).toBe(404);
    expect((await request("/login", { key: null, headers: { "x-request-id": "trace-next" } })).status).toBeLessThan(500);
    const lines = await waitFor(
      "both lines",
      () => {
        const all = logLines(server.output());
        const unmatched = all.find((line) => line.request_id === "trace-unmatched");
        const page = all.find((line) => line.request_id === "trace-next");
        return unmatched && page ? { unmatched, page } : undefined;
      },
      { ...SLOW, describe: () => server.output() },
    );
    expect(lines.unmatched).toMatchObject({ route: "unmatched", status: 404 });
    expect(lines.page).toMatchObject({ route: "next" });
  }, 120_000);
});

describe("GET /api/metrics", () => {
  it("needs an admin key or the metrics token", async () => {
    const anonymous = await request("/api/metrics", { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    expect((await request("/api/metrics", { key: curatorKey })).status).toBe(403);
    expect((await request("/api/metrics", { key: `${METRICS_TOKEN}-not` })).status).toBe(401);
    expect((await request("/api/metrics", { key: adminKey })).status).toBe(200);
    expect((await request("/api/metrics", { key: METRICS_TOKEN })).status).toBe(200);
  });

  it("counts requests, documents, queues, attempts and the worker's jobs and indexing lag, as the database does", async () => {
    const ids = ["metric-doc-1", "metric-doc-2", "metric-doc-3"];
    const before = await scrape();
    const ingestedBefore = sample(before, "svc_http_requests_total", { component: "web", method: "POST", route: "/api/svc-api/ingestion", status: "200" }) ?? 0;
    for (const id of ids) expect((await request("/api/svc-api/ingestion", { method: "POST", body: testIngestionBody({ id }) })).status).toBe(200);

    const indexedInDb = () => database.db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } });
    await waitFor("the worker to index the documents", async () => ((await indexedInDb()) === ids.length ? true : undefined), {
      ...SLOW,
      describe: () => workerOutput,
    });
    // The worker publishes its metrics about a second after its jobs.
    const samples = await waitFor(
      "the worker's metrics",
      async () => {
        const scraped = await scrape();
        const indexedJobs = scraped
          .filter((entry) => entry.name === "svc_jobs_total" && entry.labels.queue === "index-document" && entry.labels.outcome === "indexed")
          .reduce((total, entry) => total + entry.value, 0);
        return indexedJobs >= ids.length + 1 ? scraped : undefined;
      },
      { ...SLOW, describe: () => workerOutput },
    );

    // Requests by route pattern and status: the three ingestions, count and histogram alike.
    const ingestion = { component: "web", method: "POST", route: "/api/svc-api/ingestion", status: "200" };
    expect(sample(samples, "svc_http_requests_total", ingestion)).toBe(ingestedBefore + ids.length);
    expect(sample(samples, "svc_http_request_duration_seconds_count", ingestion)).toBe(ingestedBefore + ids.length);
    expect(sample(samples, "svc_http_request_duration_seconds_bucket", { ...ingestion, le: "+Inf" })).toBe(ingestedBefore + ids.length);

    // Documents by status, index attempts by status: what the database holds.
    const documents = await database.db.document.groupBy({ by: ["indexingStatus"], _count: true });
    for (const status of ["queued", "indexing", "indexed", "failed"]) {
      const inDb = documents.find((row) => row.indexingStatus === status)?._count ?? 0;
      expect(sample(samples, "svc_documents", { indexing_status: status }), status).toBe(inDb);
    }
    expect(sample(samples, "svc_documents", { indexing_status: "indexed" })).toBe(ids.length + 1);
    const attempts = await database.db.indexAttempt.groupBy({ by: ["status"], _count: true });
    expect(attempts.length).toBeGreaterThan(0);
    for (const row of attempts) expect(sample(samples, "svc_index_attempts", { status: row.status }), row.status).toBe(row._count);

    // Queues: nothing waits once everything is indexed.
    expect(sample(samples, "svc_queue_depth", { queue: "index-document" })).toBe(0);
    expect(sample(samples, "svc_queue_oldest_age_seconds", { queue: "index-document" })).toBe(0);
    // The maintenance process publishes its metrics too, but is no worker.
    expect(sample(samples, "svc_workers")).toBe(1);

    // The worker's own metrics, labelled with its id: jobs by outcome and the indexing lag of each document.
    const workerId = samples.find((entry) => entry.name === "svc_indexing_lag_seconds_count")?.labels.worker_id;
    expect(workerId).toMatch(/^[0-9a-f-]{36}$/);
    const ofWorker = { component: "worker", worker_id: workerId! };
    expect(sample(samples, "svc_indexing_lag_seconds_count", ofWorker)).toBe(ids.length + 1);
    expect(sample(samples, "svc_indexing_lag_seconds_bucket", { ...ofWorker, le: "+Inf" })).toBe(ids.length + 1);
    expect(sample(samples, "svc_indexing_lag_seconds_sum", ofWorker)).toBeGreaterThan(0);
    expect(sample(samples, "svc_jobs_total", { ...ofWorker, queue: "index-document", outcome: "indexed" })).toBe(ids.length + 1);

    // The search index's maintenance: the maintenance process merged the new rows, none is left
    // unmerged, and the worker merged nothing.
    const { id: generationId } = await database.db.indexGeneration.findFirstOrThrow({ where: { status: "current" } });
    const merged = await waitFor(
      "the maintenance process's merge of the new rows",
      async () => {
        const scraped = await scrape();
        const id = scraped.find((entry) => entry.name === "svc_search_index_merge_seconds_count" && entry.labels.component === "maintenance")?.labels.worker_id;
        const ofMaintenance = { component: "maintenance", worker_id: id ?? "" };
        const left = sample(scraped, "svc_search_index_unmerged_rows", { ...ofMaintenance, generation_id: String(generationId) });
        return (sample(scraped, "svc_search_index_merge_seconds_count", { ...ofMaintenance, action: "merge" }) ?? 0) >= 1 && left === 0 ? { scraped, ofMaintenance } : undefined;
      },
      { ...SLOW, describe: () => workerOutput },
    );
    const { ofMaintenance } = merged;
    expect(sample(merged.scraped, "svc_search_index_merge_seconds_sum", { ...ofMaintenance, action: "merge" })).toBeGreaterThan(0);
    expect(sample(merged.scraped, "svc_search_index_merge_seconds_count", { ...ofWorker, action: "merge" })).toBeUndefined();

    // Process metrics of the three processes.
    const final = merged.scraped;
    expect(sample(final, "process_resident_memory_bytes", { component: "web" })).toBeGreaterThan(0);
    expect(sample(final, "process_resident_memory_bytes", ofWorker)).toBeGreaterThan(0);
    expect(sample(final, "process_resident_memory_bytes", ofMaintenance)).toBeGreaterThan(0);
    // Resident memory by kind: what each process's work allocates (anonymous) apart from mapped files,
    // and LanceDB's native module among those (worker and maintenance have opened the index).
    for (const labels of [{ component: "web" }, ofWorker, ofMaintenance]) {
      const kind = (name: string) => sample(final, "svc_process_resident_memory_bytes", { ...labels, kind: name }) ?? -1;
      expect(kind("anonymous")).toBeGreaterThan(0);
      expect(kind("file")).toBeGreaterThan(0);
      expect(kind("shmem")).toBeGreaterThanOrEqual(0);
      expect(kind("search_index_module")).toBeGreaterThanOrEqual(0);
      expect(kind("search_index_module")).toBeLessThanOrEqual(kind("file"));
    }
    expect(sample(samples, "svc_process_resident_memory_bytes", { ...ofWorker, kind: "search_index_module" })).toBeGreaterThan(0);
    expect(sample(final, "svc_process_resident_memory_bytes", { ...ofMaintenance, kind: "search_index_module" })).toBeGreaterThan(0);

    // The worker logged each job's outcome, one JSON line each.
    const jobLines = logLines(workerOutput).filter((line) => line.msg === "job done" && ids.includes(line.document_id as string));
    expect(jobLines.map((line) => line.document_id).sort()).toEqual(ids);
    for (const line of jobLines) {
      expect(line).toMatchObject({ name: "worker", queue: "index-document", outcome: "indexed", version: 1, retry_count: 0 });
      expect(typeof line.job_id).toBe("string");
      expect(typeof line.lag_ms).toBe("number");
      expect(typeof line.duration_ms).toBe("number");
    }
  }, 180_000);
});
