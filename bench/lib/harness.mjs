// What every benchmark here needs: a fresh database on DATABASE_URL's server, an admin key, the
// production web server (and any other process) started and stopped, and the machine described.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The node flags and environment `svc start` gives its web, worker and maintenance children. */
const childSettings = JSON.parse(readFileSync(path.join(root, "apps/cli/src/commands/child-settings.json"), "utf8"));
export const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export function databaseUrl(name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function recreateDatabase(name) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
}

/** Drops a database this run created (never one it did not). */
export async function dropDatabase(name) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
}

/** A TCP port nothing listens on now: the machine is shared, so no bench takes a fixed one. */
export async function findFreePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs the built `svc` command on the database at `url`; returns the last line it printed (a new key,
 * say). `checkout`: the repository whose build runs (this one unless a benchmark compares another).
 */
export function runSvc(url, args, checkout = root) {
  const output = execFileSync(process.execPath, [path.join(checkout, "apps/cli/dist/svc.js"), ...args], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return output.trim().split("\n").at(-1);
}

/** Prepares the database (migrations, queues) through the CLI and returns a new admin key. */
export function createAdminKey(url, checkout = root) {
  return runSvc(url, ["keys", "create", "--name", "bench", "--role", "admin"], checkout);
}

/** Child processes that must live for the whole run: one dying early ends the run. */
/** Whether a child process has neither exited nor been killed yet. */
export const isRunning = (child) => child.exitCode === null && child.signalCode === null;

export class ProcessGroup {
  #children = [];
  #stopping = false;

  /**
   * BENCH_NODE_ARGS (say "--cpu-prof --cpu-prof-dir=/tmp/prof") go to every child's node, to profile it.
   * BENCH_LOG_DIR keeps each child's standard output (its JSON log lines) in a file there, named after
   * the child and the time it started; without it the output is dropped.
   */
  start(name, args, options = {}) {
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    const logDir = process.env.BENCH_LOG_DIR;
    const out = logDir ? openSync(path.join(logDir, `${name.replaceAll(" ", "-")}-${Date.now()}.log`), "a") : "ignore";
    const child = spawn(process.execPath, [...nodeArgs, ...args], { ...options, stdio: ["ignore", out, "inherit"] });
    if (typeof out === "number") closeSync(out);
    child.on("exit", (code, signal) => {
      if (!this.#stopping) {
        console.error(`${name} exited early with ${code ?? signal}`);
        // The others would outlive the run otherwise.
        this.stopAll();
        process.exit(1);
      }
    });
    this.#children.push(child);
    return child;
  }

  /**
   * The production web server (apps/web/dist/server.js) on 127.0.0.1:port, with `svc start`'s node
   * flags; BENCH_WEB_NODE_FLAGS, when set, replaces them (to try others; "" for none).
   */
  startWebServer(url, port) {
    const { env: startEnv } = childSettings.web;
    const nodeFlags = process.env.BENCH_WEB_NODE_FLAGS?.split(" ").filter(Boolean) ?? childSettings.web.nodeFlags;
    return this.start("svc", [...nodeFlags, path.join(root, "apps/web/dist/server.js")], {
      cwd: path.join(root, "apps/web"),
      env: { ...startEnv, ...process.env, DATABASE_URL: url, PORT: String(port), HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1" },
    });
  }

  /**
   * The production worker (apps/worker/dist/main.js) with `svc start`'s node flags and environment
   * (the caller's environment wins, as it does there); `env` adds or overrides variables (batch size,
   * concurrency). BENCH_WORKER_NODE_ARGS add node flags to the worker alone (to try one).
   * SVC_WORKER_NICE lowers its CPU priority as `svc start` does, as soon as it is spawned.
   */
  startWorker(url, env = {}) {
    const { nodeFlags, env: startEnv } = childSettings.worker;
    const extraArgs = process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    const worker = this.start("worker", [...nodeFlags, ...extraArgs, path.join(root, "apps/worker/dist/main.js")], {
      cwd: path.join(root, "apps/worker"),
      env: { ...startEnv, ...process.env, DATABASE_URL: url, ...env },
    });
    const niceness = Number(process.env.SVC_WORKER_NICE ?? 0);
    if (niceness > 0) os.setPriority(worker.pid, niceness);
    return worker;
  }

  /**
   * The index maintenance process (apps/worker/dist/maintain.js) with `svc start`'s node flags,
   * environment and CPU priority (SVC_INDEX_MAINTENANCE_NICE, 5 unless set). A worker beside it
   * should be started with SVC_WORKER_MAINTAINS_INDEX=false, as `svc start` starts its own.
   */
  startMaintenance(url, env = {}) {
    const { nodeFlags, env: startEnv } = childSettings.maintenance;
    const maintenance = this.start("maintenance", [...nodeFlags, path.join(root, "apps/worker/dist/maintain.js")], {
      cwd: path.join(root, "apps/worker"),
      env: { ...startEnv, ...process.env, DATABASE_URL: url, ...env },
    });
    os.setPriority(maintenance.pid, Number(process.env.SVC_INDEX_MAINTENANCE_NICE ?? 5));
    return maintenance;
  }

  /** Stops one child on purpose (SIGTERM) and resolves once it has exited. */
  async stop(child) {
    if (!isRunning(child)) return;
    child.removeAllListeners("exit");
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    this.#children = this.#children.filter((other) => other !== child);
  }

  stopAll() {
    this.#stopping = true;
    for (const child of this.#children) child.kill("SIGTERM");
  }

  /** stopAll, then resolves once every child has exited (or 30 s passed). */
  async stopAllAndWait() {
    const running = this.#children.filter(isRunning);
    const exited = running.map((child) => new Promise((resolve) => child.once("exit", resolve)));
    this.stopAll();
    await Promise.race([Promise.all(exited), new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
  }
}

export async function waitForHttp(url, deadlineMs = 180_000) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { method: "POST", body: "{}" });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${url} did not answer within ${deadlineMs} ms`);
}

/** Processes below `pid` (children, grandchildren…) whose command line contains `needle`. */
export function findDescendant(pid, needle) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Exited while being read.
    }
  }
  for (const [candidate] of parents) {
    let ancestor = parents.get(candidate);
    while (ancestor && ancestor !== pid) ancestor = parents.get(ancestor);
    if (ancestor !== pid) continue;
    try {
      if (readFileSync(`/proc/${candidate}/cmdline`, "utf8").includes(needle)) return candidate;
    } catch {
      // Exited while being read.
    }
  }
  return undefined;
}

export async function waitUntil(what, probe, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Resident memory of a live process, now and at its peak so far (VmRSS, VmHWM of /proc/<pid>/status), in
 * bytes; the RSS split into anonymous (heaps, V8 and native) and file-backed (code, mapped files).
 */
export function processMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM"), anon: kib("RssAnon"), file: kib("RssFile") };
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** A process's CPU time so far (user + system), in seconds; with `children`, that of its reaped children too. */
export function processCpuSeconds(pid, { children = false } = {}) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  const [utime, stime, cutime, cstime] = fields.slice(11, 15);
  return (utime + stime + (children ? cutime + cstime : 0)) / CLOCK_TICKS;
}

/**
 * The CPU time of the local PostgreSQL server so far: every live postgres process, and, through the
 * postmaster's children counters, the backends that have exited. Zero when the server is not local.
 */
export function postgresCpuSeconds() {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      const parent = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      const isPostmaster = readFileSync(`/proc/${parent}/comm`, "utf8").trim() !== "postgres";
      total += processCpuSeconds(Number(entry), { children: isPostmaster });
    } catch {
      // The process exited while being read.
    }
  }
  return total;
}

// ~2 KB documents, as the ingestion benchmarks send them.
const PLANNING_NOTES = "Quarterly planning notes: the platform team ships the ingestion queue, the search team tunes ranking, and support documents the new workflow. ".repeat(13);

/** The JSON body of one ingestion of a ~2 KB document with the given id. */
export function planningNotesBody(id, sequence) {
  return JSON.stringify({
    document: {
      id,
      semantic_identifier: `Planning notes ${sequence}`,
      sections: [{ text: PLANNING_NOTES, link: `https://wiki.example.com/notes/${sequence}` }],
      metadata: { team: "platform", tags: ["planning", "q3"] },
      doc_updated_at: "2026-11-01T09:00:00Z",
    },
  });
}

/** A comma-separated environment variable (BENCH_RATES, BENCH_TARGETS…) as its items, `fallback` when unset. */
export const envList = (name, fallback) => (process.env[name] ?? fallback).split(",").map((item) => item.trim()).filter(Boolean);

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The nearest-rank percentile of already sorted values. */
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

export function describeMachine() {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/**
 * The HTTP front of the bare servers benchmarks compare svc with (node:http only): every request's
 * body goes to `handle`, whose result is answered as JSON with a 200, or a 500 if it throws.
 */
export function serveJson(port, name, handle) {
  http
    .createServer((request, response) => {
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => {
        handle(Buffer.concat(chunks).toString("utf8")).then(
          (result) => {
            response.writeHead(200, { "content-type": "application/json" });
            response.end(JSON.stringify(result));
          },
          (error) => {
            response.writeHead(500, { "content-type": "application/json" });
            response.end(JSON.stringify({ detail: String(error) }));
          },
        );
      });
    })
    .listen(Number(port), "127.0.0.1", () => console.log(`${name} listening on ${port}`));
}

/** `work(client)` in one transaction on a pooled connection: committed if it returns, rolled back if it throws. */
export async function inTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Open-loop load: `send(index, dueAt)` is called for each of `total` requests at `rate` per second,
 * every request when it is due whatever the earlier ones did. Resolves once the last has been sent,
 * with the performance.now() the schedule started at.
 */
export function offerOpenLoop(rate, total, send) {
  const startedAt = performance.now();
  let sent = 0;
  return new Promise((resolve) => {
    const tick = setInterval(() => {
      // Request i is due at i / rate: at time t, floor(t × rate) + 1 of them are.
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) / 1000) * rate) + 1);
      while (sent < due) {
        send(sent, startedAt + (sent * 1000) / rate);
        sent += 1;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve(startedAt);
      }
    }, 2);
  });
}

/**
 * POSTs a JSON body to the server on `port` over the keep-alive `agent` (node:http: a load generator's
 * own cost stays small next to fetch's), to the single ingestion call unless `path` names another, with
 * `key` as the bearer key. Never rejects: resolves with the answer's status and text once it has been
 * read, or with `status` "timeout" (after `timeoutMs`) or "error CODE" (ECONNRESET: a connection past
 * SVC_MAX_CONNECTIONS, EADDRNOTAVAIL: no port left…) and an empty text.
 */
export function postJson({ agent, port, path: requestPath = "/api/svc-api/ingestion", key, headers = {}, body, timeoutMs }) {
  return new Promise((resolve) => {
    const failed = (status) => resolve({ status, text: "" });
    const request = http.request(
      {
        agent,
        host: "127.0.0.1",
        port,
        path: requestPath,
        method: "POST",
        timeout: timeoutMs,
        headers: {
          ...headers,
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const parts = [];
        response.on("data", (part) => parts.push(part));
        response.on("end", () => resolve({ status: response.statusCode, text: Buffer.concat(parts).toString() }));
        response.on("error", () => failed("error"));
      },
    );
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", (error) => failed(error.message === "timeout" ? "timeout" : `error ${error.code ?? error.message}`));
    request.end(body);
  });
}
