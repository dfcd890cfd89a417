// A database that is up but does not answer (a paused host, a partition, a failover in progress):
// every PostgreSQL process of a server of this file's own is stopped with SIGSTOP. Each request must
// answer 503 with Retry-After in bounded time, never hang, and everything heals after SIGCONT
// (decisions.md "Limits and overload").
import { readdir, readFile, readlink, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createApiKey, prepareDatabase } from "@svc/core";
import { postTestIngestion, removeTestSearchIndex, testIngestionBody, waitForIndexed } from "@svc/core/testing";
import { createDb, type Db } from "@svc/db";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "@svc/db/embedded";
import { freezePostgres, timedAnswer, waitFor, type TimedAnswer } from "@svc/db/testing";
import { SearchResponseSchema, type ServiceStatus } from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInToConsole, startProductionServer, type ProductionServer } from "./production-server";
import { startTestWorker, type TestWorker } from "./worker";

const POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
const POOL_SIZE = 4;
/** The web process's pool (its stall probe included), pg-boss's producer pool (2) and the key cache's listener. */
const MAX_WEB_CONNECTIONS = POOL_SIZE + 2 + 1;
/** README "Limits and overload": a request on a database that does not answer gets its 503 within this. */
const STALL_BOUND_MS = 5_000;
const READY_BOUND_MS = 1_000;
const HEAL_BOUND_MS = 15_000;
const WORD = "glaciation";

let dataDir: string;
let server: EmbeddedPostgresServer | undefined;
let web: ProductionServer | undefined;
let workerDb: Db | undefined;
let worker: TestWorker | undefined;
let key: string;
/** A signed-in console session's cookie. */
let consoleCookie: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-web-stall-pg-"));
  server = await startEmbeddedPostgres({ dataDir, postgresFlags: POSTGRES_FLAGS });
  await prepareDatabase(server.databaseUrl);
  const db = createDb({ databaseUrl: server.databaseUrl, poolSize: 1 });
  try {
    key = (await createApiKey({ db, name: "stall test", role: "admin" })).key;
  } finally {
    await db.$disconnect();
  }
  web = await startProductionServer({ databaseUrl: server.databaseUrl, env: { SVC_DB_POOL_SIZE: String(POOL_SIZE) } });
  consoleCookie = await signInToConsole(web.base, key);
  workerDb = createDb({ databaseUrl: server.databaseUrl, poolSize: 4, applicationName: "svc-test-worker" });
  worker = await startTestWorker({ db: workerDb, databaseUrl: server.databaseUrl });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await workerDb?.$disconnect();
  await web?.stop();
  await server?.stop();
  await removeTestSearchIndex();
  await rm(dataDir, { recursive: true, force: true });
});

/** What a user does: ingest, ingest a batch, read a document, search, the console's first call, and a console page load. */
function userRequests(base: string, round: string): Array<[string, () => Promise<Response>]> {
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  return [
    ["ingestion", () => postTestIngestion(base, key, testIngestionBody({ id: `stall-${round}`, text: `${WORD} ${round}` }))],
    [
      "batch",
      () =>
        fetch(`${base}/api/svc-api/ingestion/batch`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ documents: [1, 2].map((n) => testIngestionBody({ id: `stall-${round}-${n}`, text: `${WORD} ${round}` })) }),
        }),
    ],
    ["get", () => fetch(`${base}/api/svc-api/ingestion/before-0`, { headers: auth })],
    ["search", () => fetch(`${base}/api/svc-api/search`, { method: "POST", headers: auth, body: JSON.stringify({ query: WORD }) })],
    ["console", () => fetch(`${base}/api/trpc/session.me`, { headers: { cookie: "svc_session=some-session" } })],
    ["console page", () => consolePage(base)],
  ];
}

/** A browser's load of a console page, signed in (its HTML, not a client-side navigation's RSC payload). */
function consolePage(base: string, method = "GET"): Promise<Response> {
  return fetch(`${base}/admin/connectors`, { method, headers: { cookie: consoleCookie, accept: "text/html" }, redirect: "manual" });
}

/** Sockets the process `pid` holds to TCP `port` (established or opening), read from /proc (Linux). */
async function socketsTo(pid: number, port: number): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1]) inodes.add(match[1]);
  }
  let count = 0;
  for (const table of ["tcp", "tcp6"]) {
    const lines = (await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [remote, state, inode] = [fields[2], fields[3], fields[9]];
      if (!remote || !inode || !inodes.has(inode)) continue;
      // 01 ESTABLISHED, 02 SYN_SENT: a connection held or being opened.
      if ((state === "01" || state === "02") && Number.parseInt(remote.split(":")[1] ?? "", 16) === port) count += 1;
    }
  }
  return count;
}

describe("a database that stops answering", () => {
  it("answers 503 with Retry-After in bounded time, fails fast meanwhile, and heals without losing or doubling work", async () => {
    if (!server || !web || !workerDb) throw new Error("not started");
    const { base, pid } = web;
    const { port } = server;

    // Connections the web process holds, sampled throughout.
    let mostSockets = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        mostSockets = Math.max(mostSockets, await socketsTo(pid, port));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    try {
      // Accepted before the freeze: indexed after it, each once.
      const before = Array.from({ length: 12 }, (_, index) => `before-${index}`);
      for (const id of before) {
        const response = await postTestIngestion(base, key, testIngestionBody({ id, text: `${WORD} ${id}` }));
        expect(response.status).toBe(200);
      }
      for (const [what, request] of userRequests(base, "warm")) expect((await timedAnswer(what, request)).status, what).toBe(200);

      const thaw = await freezePostgres(dataDir);
      let thawedAt: number;
      try {
        // All at once, while the pool's connections wait on the frozen server: each within the bound.
        // Readiness with them, before the breaker opens: its own deadline answers it.
        const [readyFirst, ...first] = await Promise.all([
          timedAnswer("ready", () => fetch(`${base}/api/ready`)),
          ...userRequests(base, "frozen").map(([what, request]) => timedAnswer(what, request)),
        ]);
        expect(readyFirst).toMatchObject({ status: 503 });
        expect(readyFirst?.ms).toBeLessThan(READY_BOUND_MS);
        // Then one by one: the breaker is open, each answers at once.
        const again: TimedAnswer[] = [];
        for (const [what, request] of userRequests(base, "frozen-again")) again.push(await timedAnswer(what, request));
        for (const answer of [...first, ...again]) {
          // A search the key cache and the index answer alone needs no database.
          if (answer.what === "search" && answer.status === 200) continue;
          expect(answer, answer.what).toMatchObject({ status: 503 });
          expect(Number(answer.retryAfter), answer.what).toBeGreaterThan(0);
          expect(answer.ms, answer.what).toBeLessThan(STALL_BOUND_MS);
        }
        for (const answer of first.filter(({ what }) => !what.startsWith("console") && what !== "search")) {
          expect(answer.body, answer.what).toEqual({ detail: "Database unavailable" });
        }
        for (const answer of again) expect(answer.ms, `${answer.what} with the breaker open`).toBeLessThan(1_000);
        // The console page a browser gets meanwhile: what is wrong, reloading itself, with every page's headers.
        for (const answer of [...first, ...again].filter(({ what }) => what === "console page")) {
          expect(answer.body).toContain("<h1>Database unavailable</h1>");
          expect(answer.body).toMatch(/<meta http-equiv="refresh" content="\d+">/);
          expect(answer.body).not.toMatch(/SVC_DB_STALLED|does not answer|timeout|at .*\.js/i);
        }
        const page = await consolePage(base, "HEAD");
        expect(page.status).toBe(503);
        expect(page.headers.get("retry-after")).toBe("5");
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
        expect(page.headers.get("x-frame-options")).toBe("DENY");
        expect(page.headers.get("x-content-type-options")).toBe("nosniff");
        expect(page.headers.get("referrer-policy")).toBe("same-origin");

        const ready = await timedAnswer("ready", () => fetch(`${base}/api/ready`));
        expect(ready.status).toBe(503);
        expect(ready.ms).toBeLessThan(READY_BOUND_MS);
        expect((await timedAnswer("health", () => fetch(`${base}/api/health`))).status).toBe(200);
      } finally {
        thaw();
        thawedAt = performance.now();
      }

      // Everything answers again within the bound, by itself.
      const healBound = () => ({ timeoutMs: Math.max(1, HEAL_BOUND_MS - (performance.now() - thawedAt)) });
      for (const [what, request] of userRequests(base, "after")) {
        await waitFor(`${what} to answer 200 after the thaw`, async () => ((await timedAnswer(what, request)).status === 200 ? true : undefined), healBound());
      }
      // The console itself again, signed in, not a page that says the database is away.
      const healed = await consolePage(base);
      expect(healed.status).toBe(200);
      const healedPage = await healed.text();
      expect(healedPage).toContain('data-testid="session-name"');
      expect(healedPage).not.toContain("Database unavailable");
      // This file's worker stamps no heartbeat, so readiness stays 503 for that alone: its database check is what heals.
      await waitFor(
        "readiness to find the database again",
        async () => ((await timedAnswer("ready", () => fetch(`${base}/api/ready`))).body as ServiceStatus).checks.database?.status === "ok" || undefined,
        healBound(),
      );

      await waitForIndexed(workerDb, before, { timeoutMs: 60_000 });
      const search = await fetch(`${base}/api/svc-api/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: WORD, limit: 100 }),
      });
      expect(search.status).toBe(200);
      const found = SearchResponseSchema.parse(await search.json()).results.map((result) => result.document_id);
      const foundBefore = found.filter((id) => id.startsWith("before-"));
      expect(foundBefore.toSorted()).toEqual(before.toSorted());
    } finally {
      sampling = false;
      await sampler;
    }
    expect(mostSockets).toBeGreaterThan(0);
    expect(mostSockets).toBeLessThanOrEqual(MAX_WEB_CONNECTIONS);
    expect(web.output()).not.toMatch(/EMFILE|heap out of memory|unhandled/i);
  }, 180_000);
});
