// `svc start` with its own embedded PostgreSQL, every process of that cluster stopped with SIGSTOP
// for FREEZE_MS, as the stall was measured (README "Two commands"; decisions.md "Limits and
// overload", "Bulk ingestion, operations, client"): requests answer 503 in bounded time, the
// supervisor restarts nothing (a stopped process is not a dead one), and after SIGCONT everything
// heals without losing or doubling work.
import path from "node:path";
import { postTestIngestion, testIngestionBody } from "@svc/core/testing";
import { freezePostgres, timedAnswer, waitFor, type TimedAnswer } from "@svc/db/testing";
import { SearchResponseSchema } from "@svc/schema";
import pg from "pg";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { inDataDir, killStarted, logLines, processRunning, SLOW, startWithEmbeddedDatabase } from "./testing/start-supervised";

afterAll(killStarted);

const FREEZE_MS = 12_000;
/** README "Two commands": a request on a database that does not answer gets its 503 within this. */
const STALL_BOUND_MS = 5_000;
const READY_BOUND_MS = 1_000;
const HEAL_BOUND_MS = 15_000;
const POOL_SIZE = 4;
const WORKER_CONCURRENCY = 2;
/**
 * Connections each part may hold, by application_name: the web's pool (its stall probe included) and
 * the key cache's LISTEN, pg-boss's producer pool in the web (2), the worker's pool
 * (SVC_WORKER_CONCURRENCY + 4) and its pg-boss pool (4), both named svc-worker.
 */
const CONNECTION_BOUNDS: Record<string, number> = {
  "svc-web": POOL_SIZE,
  "svc-web-listen": 1,
  "svc-producer": 2,
  "svc-worker": WORKER_CONCURRENCY + 4 + 4,
  // The worker's webhook sender has a pool of its own (apps/worker/src/main.ts), and so do the
  // search index's table gates (SVC_WORKER_CONCURRENCY + 5).
  "svc-worker-webhooks": 2,
  "svc-worker-index-gates": WORKER_CONCURRENCY + 5,
  // The index maintenance process (apps/worker/src/maintain.ts): its pool and its gates' pool.
  "svc-maintenance": 2,
  "svc-maintenance-index-gates": 3,
};
const TOTAL = "all of svc";
CONNECTION_BOUNDS[TOTAL] = Object.values(CONNECTION_BOUNDS).reduce((sum, bound) => sum + bound, 0);
const WORD = "moraine";
/** Enough for the worker to be still indexing them when the freeze comes (it indexes ~50 a second here). */
const LATE_DOCUMENTS = 300;

/** The rows of a query on the test's own connection. */
async function query<Row>(client: pg.Client, sql: string, values: unknown[] = []): Promise<Row[]> {
  return (await client.query(sql, values)).rows as Row[];
}

describe("svc start with its embedded PostgreSQL frozen", () => {
  it("answers 503 in bounded time, restarts nothing, and heals after SIGCONT without losing or doubling work", async () => {
    await inDataDir(async (dataDir) => {
      const { svc, root, port, pgPort, key } = await startWithEmbeddedDatabase(dataDir, {
        SVC_DB_POOL_SIZE: String(POOL_SIZE),
        SVC_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
        // No event-loop shedding: on a busy test machine a stray 429 would be taken for a failure here.
        SVC_MAX_EVENT_LOOP_DELAY_MS: "0",
      });
      const base = `http://127.0.0.1:${port}`;
      const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/svc`;
      const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const ingest = (id: string) => postTestIngestion(base, key, testIngestionBody({ id, title: id, text: `${WORD} ${id}` }));
      /** What a user does: ingest, ingest a batch, read a document, search, the console's first call, and a console page load. */
      const userRequests = (round: string): Array<[string, () => Promise<Response>]> => [
        ["ingestion", () => ingest(`${round}-single`)],
        [
          "batch",
          () =>
            fetch(`${base}/api/svc-api/ingestion/batch`, {
              method: "POST",
              headers: auth,
              body: JSON.stringify({ documents: [1, 2].map((n) => testIngestionBody({ id: `${round}-batch-${n}`, text: `${WORD} ${round}` })) }),
            }),
        ],
        ["get", () => fetch(`${base}/api/svc-api/ingestion/indexed-0`, { headers: auth })],
        ["search", () => fetch(`${base}/api/svc-api/search`, { method: "POST", headers: auth, body: JSON.stringify({ query: WORD }) })],
        ["console", () => fetch(`${base}/api/trpc/session.me`, { headers: { cookie: "svc_session=some-session" } })],
        // Unknown session: the sign-in page it is sent to once the database answers.
        ["console page", () => fetch(`${base}/admin/connectors`, { headers: { cookie: "svc_session=some-session", accept: "text/html" } })],
      ];
      const indexedCount = async (ids: string[]) =>
        (await query<{ n: number }>(client, "SELECT count(*)::int AS n FROM document WHERE id = ANY($1) AND indexing_status = 'indexed'", [ids]))[0]?.n;
      await waitFor("web and worker ready", async () => ((await fetch(`${base}/api/ready`)).ok ? true : undefined), { ...SLOW, describe: svc.output });
      // One connection of the test's own, opened now, idle through the freeze, and left out of the counts.
      const client = new pg.Client({ connectionString: databaseUrl, application_name: "svc-stall-test" });
      await client.connect();
      onTestFinished(() => client.end());

      // Indexed before the freeze, and accepted just before it: the worker is on those when it comes.
      const indexed = Array.from({ length: 4 }, (_, index) => `indexed-${index}`);
      for (const id of indexed) expect((await ingest(id)).status).toBe(200);
      await waitFor("the first documents indexed", async () => ((await indexedCount(indexed)) === indexed.length ? true : undefined), SLOW);
      const late = Array.from({ length: LATE_DOCUMENTS }, (_, index) => `late-${index}`);
      const lateBatch = await fetch(`${base}/api/svc-api/ingestion/batch`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ documents: late.map((id) => testIngestionBody({ id, title: id, text: `${WORD} ${id}` })) }),
      });
      expect(lateBatch.status).toBe(200);

      const parts = {
        postgres: await processRunning(root, `-p ${pgPort}`),
        web: await processRunning(root, "apps/web/dist/server.js"),
        worker: await processRunning(root, "apps/worker/dist/main.js"),
      };
      const thaw = await freezePostgres(path.join(dataDir, "postgres"));
      const frozenAt = performance.now();
      let thawedAt: number;
      try {
        // All at once, while the pools' connections wait on the frozen server, readiness with them.
        const [readyFirst, ...first] = await Promise.all([
          timedAnswer("ready", () => fetch(`${base}/api/ready`)),
          ...userRequests("frozen").map(([what, request]) => timedAnswer(what, request)),
        ]);
        expect(readyFirst).toMatchObject({ status: 503 });
        expect(readyFirst?.ms).toBeLessThan(READY_BOUND_MS);
        const again: TimedAnswer[] = [];
        for (const [what, request] of userRequests("frozen-again")) again.push(await timedAnswer(what, request));
        for (const answer of [...first, ...again]) {
          // A search the key cache and the index answer alone needs no database.
          if (answer.what === "search" && answer.status === 200) continue;
          expect(answer, answer.what).toMatchObject({ status: 503 });
          expect(Number(answer.retryAfter), answer.what).toBeGreaterThan(0);
          expect(answer.ms, answer.what).toBeLessThan(STALL_BOUND_MS);
        }
        // For the rest of the freeze, once a second: not ready, still alive, and the same processes.
        while (performance.now() - frozenAt < FREEZE_MS) {
          const ready = await timedAnswer("ready", () => fetch(`${base}/api/ready`));
          expect(ready.status).toBe(503);
          expect(ready.ms).toBeLessThan(READY_BOUND_MS);
          expect((await timedAnswer("health", () => fetch(`${base}/api/health`))).status).toBe(200);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      } finally {
        thaw();
        thawedAt = performance.now();
      }

      // Connections by part, sampled from the thaw on, while the parts reconnect, to the end.
      const mostConnections = new Map<string, number>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const rows = await query<{ application_name: string; n: number }>(
            client,
            `SELECT application_name, count(*)::int AS n FROM pg_stat_activity
              WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY application_name`,
          );
          for (const { application_name: name, n } of rows) mostConnections.set(name, Math.max(n, mostConnections.get(name) ?? 0));
          const total = rows.reduce((sum, { n }) => sum + n, 0);
          mostConnections.set(TOTAL, Math.max(total, mostConnections.get(TOTAL) ?? 0));
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      onTestFinished(() => {
        sampling = false;
        return sampler;
      });

      // Everything answers again within the bound, by itself; readiness includes the worker's heartbeat.
      const healBound = () => ({ timeoutMs: Math.max(1, HEAL_BOUND_MS - (performance.now() - thawedAt)), describe: svc.output });
      for (const [what, request] of userRequests("after")) {
        await waitFor(`${what} to answer 200 after the thaw`, async () => ((await timedAnswer(what, request)).status === 200 ? true : undefined), healBound());
      }
      await waitFor("readiness after the thaw", async () => ((await fetch(`${base}/api/ready`)).ok ? true : undefined), healBound());

      // The supervisor took the frozen server for what it is: nothing was stopped or started again.
      expect({
        postgres: await processRunning(root, `-p ${pgPort}`),
        web: await processRunning(root, "apps/web/dist/server.js"),
        worker: await processRunning(root, "apps/worker/dist/main.js"),
      }).toEqual(parts);
      expect(logLines(svc.output()).filter((line) => line.name === "svc" && Number(line.level) >= 40)).toEqual([]);

      // Every document accepted is indexed, each once: its chunks as many as it has, the pair's count
      // as many as its indexed documents, and no search hit twice.
      const accepted = [...indexed, ...late, "after-single", "after-batch-1", "after-batch-2"];
      await waitFor("every accepted document indexed", async () => ((await indexedCount(accepted)) === accepted.length ? true : undefined), {
        timeoutMs: 60_000,
        describe: svc.output,
      });
      const chunksOff = await query(
        client,
        `SELECT d.id, d.chunk_count, count(c.*)::int AS chunks FROM document d
           LEFT JOIN document_chunk c ON c.document_id = d.id AND c.generation_id = current_index_generation_id()
          WHERE d.id = ANY($1) GROUP BY d.id HAVING count(c.*) <> d.chunk_count OR d.chunk_count IS NULL`,
        [accepted],
      );
      expect(chunksOff).toEqual([]);
      const [counts] = await query<{ counted: number; linked: number }>(
        client,
        `SELECT (SELECT sum(docs_indexed)::int FROM connector_credential_pair) AS counted,
                (SELECT count(*)::int FROM document_by_cc_pair WHERE has_been_indexed) AS linked`,
      );
      expect(counts?.counted).toBe(counts?.linked);
      const search = await fetch(`${base}/api/svc-api/search`, { method: "POST", headers: auth, body: JSON.stringify({ query: WORD, limit: 100 }) });
      expect(search.status).toBe(200);
      const found = SearchResponseSchema.parse(await search.json()).results.map((result) => result.document_id);
      expect(found.length).toBeGreaterThan(0);
      expect(new Set(found).size).toBe(found.length);

      sampling = false;
      await sampler;
      // No more connections than the pools allow, from the thaw on.
      expect(mostConnections.get("svc-web")).toBeGreaterThan(0);
      // A connection still in its handshake has no name yet: it counts in the total alone.
      for (const [name, most] of mostConnections) if (name) expect(most, `connections of ${name}`).toBeLessThanOrEqual(CONNECTION_BOUNDS[name] ?? 0);
    });
  }, 120_000);
});
