import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKey } from "@svc/core";
import { postTestIngestion, testIngestionBody } from "@svc/core/testing";
import { createTestDatabase, findFreePort, waitFor } from "@svc/db/testing";
import { afterAll, describe, expect, it } from "vitest";
import { SVC_ENTRY } from "./testing/run-svc";
import {
  descendants,
  inDataDir,
  isAlive,
  killStarted,
  logLines,
  processRunning,
  run,
  SLOW,
  startWithEmbeddedDatabase,
  supervisorLine,
  trackStarted,
} from "./testing/start-supervised";

const STACK_TRACE = /\n\s+at .+:\d+:\d+/;

afterAll(killStarted);

/** The nice value of each thread of `pid` (Linux keeps one per thread; /proc/PID/task/TID/stat, field 19). */
async function threadNiceness(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`);
  const stats = await Promise.all(threads.map((thread) => readFile(`/proc/${pid}/task/${thread}/stat`, "utf8")));
  return stats.map((stat) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
}

async function waitForGone(processes: number[], options?: { timeoutMs: number }): Promise<void> {
  await waitFor("every process of svc to be gone", () => (processes.every((pid) => !isAlive(pid)) ? true : undefined), options);
}

/**
 * `svc start` as above, once its worker consumes jobs, with the processes a signal test aims at and
 * checks: the supervisor, the embedded PostgreSQL, and every process of the tree.
 */
async function startAndFindProcesses(dataDir: string) {
  const started = await startWithEmbeddedDatabase(dataDir);
  const { svc, root, pgPort } = started;
  await waitFor("the worker", () => (svc.output().includes('"msg":"consuming jobs"') ? true : undefined), { ...SLOW, describe: svc.output });
  const supervisor = await waitFor("the supervisor", () => processRunning(root, "--as-supervisor"), SLOW);
  const postgres = await waitFor("the embedded PostgreSQL", () => processRunning(root, `-p ${pgPort}`), SLOW);
  const processes = (await descendants(root)).map((process) => process.pid);
  return { ...started, supervisor, postgres, processes };
}

describe("svc start as a supervisor", () => {
  it("restarts a killed worker and a killed embedded PostgreSQL, and stops in order on SIGTERM with exit 0", async () => {
    await inDataDir(async (dataDir) => {
      const { svc, root, pgPort, ingest } = await startWithEmbeddedDatabase(dataDir, { SVC_WORKER_NICE: "10" });

      const worker = await waitFor("the worker process", () => processRunning(root, "apps/worker/dist/main.js"), SLOW);
      const web = await waitFor("the web process", () => processRunning(root, "apps/web/dist/server.js"), SLOW);
      const maintenance = await waitFor("the index maintenance process", () => processRunning(root, "apps/worker/dist/maintain.js"), SLOW);
      // SVC_WORKER_NICE sets the worker's nice value: on every worker thread, none of the web's, which
      // keeps this test's own (0, or 10 in a run under `nice -n 10`). The maintenance process runs at
      // SVC_INDEX_MAINTENANCE_NICE (5 by default), and the worker leaves the index's maintenance to it.
      expect(new Set(await threadNiceness(worker))).toEqual(new Set([10]));
      expect(new Set(await threadNiceness(web))).toEqual(new Set([os.getPriority()]));
      expect(new Set(await threadNiceness(maintenance))).toEqual(new Set([Math.min(19, os.getPriority() + 5)]));
      expect(await readFile(`/proc/${worker}/environ`, "utf8")).toContain("\0SVC_WORKER_MAINTAINS_INDEX=false\0");
      process.kill(worker, "SIGKILL");
      const restartLine = await waitFor("the supervisor to name the cause", () =>
        logLines(svc.output()).find((line) => line.name === "svc" && line.part === "worker" && line.cause === "killed by SIGKILL"),
      );
      // A warning (pino's level 40) with the cause in fields and in words.
      expect(restartLine).toMatchObject({ level: 40, signal: "SIGKILL", exit_code: null });
      expect(restartLine.msg).toMatch(/^worker exited \(killed by SIGKILL\); restarting it in [\d.]+ s$/);
      const restarted = await waitFor("a new worker process", async () => {
        const pid = await processRunning(root, "apps/worker/dist/main.js");
        return pid !== undefined && pid !== worker ? pid : undefined;
      }, SLOW);
      expect(restarted).not.toBe(worker);
      expect(os.getPriority(restarted)).toBe(10);

      const postgres = await waitFor("the embedded PostgreSQL", () => processRunning(root, `-p ${pgPort}`), SLOW);
      process.kill(postgres, "SIGKILL");
      await waitFor("the embedded PostgreSQL to run again", () => (supervisorLine(svc.output(), { part: "postgres", msg: "embedded PostgreSQL running again" }) >= 0 ? true : undefined), {
        ...SLOW,
        describe: svc.output,
      });
      await waitFor("ingestion after the database restart", async () => ((await ingest("after")) === 200 ? true : undefined), {
        ...SLOW,
        describe: svc.output,
      });

      const processes = (await descendants(root)).map((process) => process.pid);
      svc.child.kill("SIGTERM");
      expect(await svc.exited).toBe(0);
      const output = svc.output();
      expect(output).not.toMatch(STACK_TRACE);
      expect(supervisorLine(output, { part: "postgres", cause: "killed by SIGKILL", msg: "embedded PostgreSQL exited (killed by SIGKILL); restarting it" })).toBeGreaterThanOrEqual(0);
      const order = [
        { part: "web", msg: "stopping web" },
        { part: "worker", msg: "stopping worker" },
        { part: "maintenance", msg: "stopping maintenance" },
        { part: "postgres", msg: "stopping PostgreSQL" },
      ].map((fields) => supervisorLine(output, fields));
      expect(order.every((index) => index >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      await waitForGone(processes);
    });
  }, 240_000);

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`stops web, worker, then the embedded PostgreSQL, and exits 0, when ${signal} reaches the supervisor's whole process group`, async () => {
      await inDataDir(async (dataDir) => {
        const { svc, supervisor, postgres, processes } = await startAndFindProcesses(dataDir);

        // As `kill -- -PGID`, systemd's KillMode=control-group or a container runtime would: every
        // process of the group at once, not only the supervisor.
        process.kill(-supervisor, signal);
        expect(await svc.exited).toBe(0);
        const output = svc.output();
        expect(output).not.toMatch(STACK_TRACE);
        // Nobody saw the database go away under them (Prisma's "database system is shut down").
        expect(logLines(output).filter((line) => Number(line.level) >= 50)).toEqual([]);
        const order = [
          { part: "web", msg: "web stopped" },
          { part: "worker", msg: "worker stopped" },
          { part: "maintenance", msg: "maintenance stopped" },
          { part: "postgres", msg: "PostgreSQL stopped" },
        ].map((fields) => supervisorLine(output, fields));
        expect(order.every((index) => index >= 0), output).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        await waitForGone(processes);
        expect(processes).toContain(postgres);
      });
    }, 180_000);
  }

  it("forces the stop on a second signal while the web server still waits for a request, and exits 130", async () => {
    await inDataDir(async (dataDir) => {
      const { svc, env, processes } = await startAndFindProcesses(dataDir);
      // A request whose body never finishes: the web server would wait up to 10 s for it.
      const socket = connect(Number(env.PORT), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write("POST /api/svc-api/ingestion HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
      socket.on("error", () => {});
      svc.child.kill("SIGINT");
      await waitFor("the stop to begin", () => (svc.output().includes('"msg":"stopping web"') ? true : undefined), SLOW);
      // Later than the wrappers' copies of the first signal: a person's quick second Ctrl+C.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const forcedAt = Date.now();
      svc.child.kill("SIGINT");
      expect(await svc.exited).toBe(130);
      expect(Date.now() - forcedAt).toBeLessThan(5_000);
      expect(svc.output()).toContain("forced stop");
      expect(supervisorLine(svc.output(), { part: "postgres", msg: "PostgreSQL stopped" })).toBeGreaterThanOrEqual(0);
      socket.destroy();
      await waitForGone(processes);
    });
  }, 180_000);

  it("stops its embedded PostgreSQL when the supervisor's whole process group is killed with -9, and starts again on the same data", async () => {
    await inDataDir(async (dataDir) => {
      const first = await startAndFindProcesses(dataDir);
      const { supervisor, postgres, processes } = first;

      // Nothing of the supervisor's runs after this: no 'exit' handler, no shutdown order.
      process.kill(-supervisor, "SIGKILL");
      await first.svc.exited;
      await waitFor("the embedded PostgreSQL to stop", () => (!isAlive(postgres) ? true : undefined), { timeoutMs: 30_000 });
      await waitForGone(processes, { timeoutMs: 30_000 });

      // Its own server (not one left over from the first run), on data that was shut down cleanly.
      const second = run(process.execPath, [SVC_ENTRY, "start"], first.env);
      await waitFor("the embedded PostgreSQL and the worker", () => (supervisorLine(second.output(), { msg: "embedded PostgreSQL running" }) >= 0 && second.output().includes('"msg":"consuming jobs"') ? true : undefined), {
        ...SLOW,
        describe: second.output,
      });
      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);
    });
  }, 240_000);

  it("runs web, two workers and the maintenance process apart on one database, and each exits 0 on SIGINT/SIGTERM (one under setsid) without a stack trace", async () => {
    const database = await createTestDatabase();
    // An index of this test's own: the default (the checkout's .data/index) is the developer's `pnpm start`'s.
    const indexDir = await mkdtemp(path.join(os.tmpdir(), "svc-apart-index-"));
    try {
      const port = await findFreePort();
      const env = { ...process.env, DATABASE_URL: database.databaseUrl, PORT: String(port), SVC_INDEX_DIR: indexDir };
      const web = run(process.execPath, [SVC_ENTRY, "start", "web"], env);
      const workers = [run("setsid", [process.execPath, SVC_ENTRY, "start", "worker"], env), run(process.execPath, [SVC_ENTRY, "start", "worker"], env)];
      for (const worker of workers) {
        await waitFor("a worker", () => (worker.output().includes('"msg":"consuming jobs"') ? true : undefined), { ...SLOW, describe: worker.output });
        expect(worker.output()).not.toContain('"name":"web"');
      }
      expect(web.output()).not.toContain('"name":"worker"');
      const maintenance = run(process.execPath, [SVC_ENTRY, "start", "maintenance"], env);
      await waitFor("the maintenance process", () => (maintenance.output().includes('"msg":"maintaining the search index"') ? true : undefined), {
        ...SLOW,
        describe: maintenance.output,
      });

      const { key } = await createApiKey({ db: database.db, name: "apart", role: "admin" });
      const ids = Array.from({ length: 20 }, (_, index) => `apart-${index}`);
      await waitFor("the web server", async () => {
        const response = await postTestIngestion(`http://127.0.0.1:${port}`, key, testIngestionBody({ id: "apart-probe", title: "probe", text: "probe" }));
        return response.status === 200 ? true : undefined;
      }, { ...SLOW, describe: web.output });
      for (const id of ids) {
        const response = await postTestIngestion(`http://127.0.0.1:${port}`, key, testIngestionBody({ id, title: id }));
        expect(response.status).toBe(200);
      }
      await waitFor("every document indexed by the workers", async () => {
        const indexed = await database.db.document.count({ where: { indexingStatus: "indexed" } });
        return indexed === ids.length + 1 ? true : undefined;
      }, SLOW);

      const [underSetsid, plain] = workers as [ReturnType<typeof run>, ReturnType<typeof run>];
      underSetsid.child.kill("SIGINT");
      plain.child.kill("SIGTERM");
      web.child.kill("SIGTERM");
      maintenance.child.kill("SIGINT");
      for (const part of [underSetsid, plain, web, maintenance]) {
        expect(await part.exited).toBe(0);
        expect(part.output()).not.toMatch(STACK_TRACE);
      }
      expect(underSetsid.output()).toMatch(/"name":"worker".*"msg":"stopped"/);
      expect(maintenance.output()).toMatch(/"name":"maintenance".*"msg":"stopped"/);
    } finally {
      await database.drop();
      await rm(indexDir, { recursive: true, force: true });
    }
  }, 180_000);

  it("takes its web server, worker and maintenance process down with it when the supervisor itself is killed with -9", async () => {
    const database = await createTestDatabase();
    try {
      const port = await findFreePort();
      const svc = run(process.execPath, [SVC_ENTRY, "start"], { ...process.env, DATABASE_URL: database.databaseUrl, PORT: String(port) });
      const root = svc.child.pid ?? 0;
      await waitFor("web and worker", () => (svc.output().includes('"msg":"consuming jobs"') && svc.output().includes('"msg":"listening"') ? true : undefined), {
        ...SLOW,
        describe: svc.output,
      });
      const supervisor = await waitFor("the supervisor", () => processRunning(root, "--as-supervisor"), SLOW);
      const parts = (await descendants(supervisor)).map((process) => process.pid);
      expect(parts.length).toBeGreaterThanOrEqual(3);
      process.kill(supervisor, "SIGKILL");
      await svc.exited;
      await waitFor("web, worker and maintenance to exit", () => (parts.every((pid) => !isAlive(pid)) ? true : undefined), { timeoutMs: 30_000, describe: svc.output });
    } finally {
      await database.drop();
    }
  }, 120_000);
});

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * `pnpm start`, the README's command, on `dataDir`; in a terminal (a pseudo-terminal from util-linux's
 * `script`, whose stdin becomes the keyboard) or with pipes. Resolves once svc answers /ready.
 */
async function startWithPnpm(dataDir: string, { terminal }: { terminal: boolean }) {
  const [port, pgPort] = [await findFreePort(), await findFreePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
    PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_EMBEDDED_PG_PORT: String(pgPort),
    SVC_SHUTDOWN_GRACE_MS: "20000",
  };
  delete env.DATABASE_URL;
  // `exec`: pnpm leads the terminal's foreground job as under an interactive shell. Without it, script's
  // `$SHELL -c` stays between them, and a non-interactive dash dies of the Ctrl+C itself (exit 130).
  const child = spawn(terminal ? "script" : "pnpm", terminal ? ["-qfec", "exec pnpm start", "/dev/null"] : ["start"], {
    cwd: repoRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  trackStarted(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await waitFor("pnpm start (ready)", async () => ((await fetch(`http://127.0.0.1:${port}/api/ready`)).ok ? true : undefined), {
    timeoutMs: 150_000,
    retryOnError: true,
    describe: () => output,
  });
  const root = child.pid ?? 0;
  const postgres = await waitFor("the embedded PostgreSQL", () => processRunning(root, `-p ${pgPort}`), SLOW);
  const processes = (await descendants(root)).map((process) => process.pid);
  return { child, exited, output: () => output, processes, postgres };
}

/** The supervisor's stop lines in `output`, pretty (a terminal) or JSON, must come in this order, each once. */
function expectStopInOrder(output: string): void {
  const steps = ["stopping web", "web stopped", "stopping worker", "worker stopped", "stopping maintenance", "maintenance stopped", "stopping PostgreSQL", "PostgreSQL stopped"];
  const positions = steps.map((step) => output.indexOf(step));
  expect(positions.every((position) => position >= 0), output).toBe(true);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  expect(output.split("stopping web").length - 1, output).toBe(1);
}

describe("pnpm start (the README's command) stopping", () => {
  it("stops web, worker and PostgreSQL in order on Ctrl+C in a terminal, prints each step, and exits 0 after the last", async () => {
    await inDataDir(async (dataDir) => {
      const svc = await startWithPnpm(dataDir, { terminal: true });
      svc.child.stdin.write("\x03");
      const { code } = await svc.exited;
      expect(code, svc.output()).toBe(0);
      // Printed before pnpm returned, hence before the prompt.
      expectStopInOrder(svc.output());
      expect(svc.output()).not.toMatch(STACK_TRACE);
      expect(svc.processes).toContain(svc.postgres);
      await waitForGone(svc.processes, { timeoutMs: 5_000 });
    });
  }, 240_000);

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`stops web, worker and PostgreSQL in order on ${signal} to pnpm without a terminal, and exits 0 after the last`, async () => {
      await inDataDir(async (dataDir) => {
        const svc = await startWithPnpm(dataDir, { terminal: false });
        const sentAt = Date.now();
        svc.child.kill(signal);
        const { code, signal: endedBy, at } = await svc.exited;
        // pnpm waits for its script, then ends itself with a SIGTERM it was sent (as a shell would), 0 otherwise.
        expect({ code, endedBy }, svc.output()).toEqual(signal === "SIGTERM" ? { code: null, endedBy: "SIGTERM" } : { code: 0, endedBy: null });
        expect(at - sentAt).toBeLessThan(20_000);
        expectStopInOrder(svc.output());
        await waitForGone(svc.processes, { timeoutMs: 5_000 });
      });
    }, 240_000);
  }
});
