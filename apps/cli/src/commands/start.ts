import path from "node:path";
import { countActiveApiKeys, createApiKey, createLogger, prepareDatabase, type Logger } from "@svc/core";
import { createDb } from "@svc/db";
import { openDatabase, type DatabaseHandle } from "../database";
import { indexDirOf, REPO_ROOT, type CliEnv } from "../env";
import { runInOwnProcessGroup } from "../supervise/run-in-own-process-group";
import { superviseChild, type SupervisedChild } from "../supervise/supervise-child";
import { UsageError } from "../cli-error";
// The node flags and environment of the web and worker children, as data, so the benchmarks
// (bench/lib/harness.mjs) run the processes exactly as this command does. Why each: below.
import childSettings from "./child-settings.json";

/** Added by runInOwnProcessGroup() to the command line of the supervisor it starts (program.ts declares it). */
const SUPERVISOR_FLAG = "--as-supervisor";
/** The web server finishes in-flight requests within 10 s (apps/web/server.ts). */
const WEB_GRACE_MS = 15_000;
/** A signal this soon after the first is the same stop told twice (a terminal's Ctrl+C reaches every wrapper, which pass it on within milliseconds); a person's quick second press comes later. */
const SAME_STOP_WINDOW_MS = 250;
const DATABASE_RESTART_ATTEMPTS = 3;
/**
 * V8 lets an idle-sized heap grow to ~500 MB under a burst of requests, nearly all of it garbage (the
 * live set stays ~80 MB), and the pages stay resident afterwards. Favouring size keeps the web process
 * near its idle RSS under overload for ~5 % less throughput (bench/RESULTS.md, bench/overload). A hard
 * --max-old-space-size would do it too, but a few 32 MiB bodies at once could then crash the server.
 */
const WEB_NODE_FLAGS = childSettings.web.nodeFlags;
/**
 * The worker's young generation grows to 128 MB under a stream of batches, nearly all garbage a
 * scavenge would free; 16 MB semi-spaces keep it to 48 MB (bench/RESULTS.md, issue 17 §2). And
 * --expose-gc: the worker collects its garbage between the write slices of a large document
 * (docs/decisions.md "The search index").
 */
const WORKER_NODE_FLAGS = childSettings.worker.nodeFlags;
/**
 * glibc's allocator in the worker, where LanceDB allocates its Arrow buffers (an operator's values are
 * kept). Two arenas rather than up to 8 per core, one per allocating thread, each keeping freed pages.
 * And a fixed mmap threshold at glibc's initial 128 KiB: by default glibc raises it (up to 32 MiB) each
 * time a large block is freed, after which large buffers come from the heap and stay resident once
 * freed; the worker's RSS then crept up ~170 MB in 10 min at 100 docs/s (bench/RESULTS.md, issue 17 §2).
 */
const WORKER_MALLOC_ENV = childSettings.worker.env;

/**
 * The index maintenance process: the worker's allocator settings (it builds FTS indexes in LanceDB's
 * native memory), none of its GC flags (it collects nothing between write slices).
 */
const MAINTENANCE_NODE_FLAGS = childSettings.maintenance.nodeFlags;
const MAINTENANCE_ENV = childSettings.maintenance.env;

export type Part = "all" | "web" | "worker" | "maintenance";

/**
 * `svc start [web|worker|maintenance]`, a supervisor: the database (embedded unless DATABASE_URL is
 * set; a part alone needs DATABASE_URL), migrations and queues, a first admin key if there is none,
 * then the web server, the worker and the index maintenance process (or the one part asked for) as
 * child processes, each restarted with backoff when it dies. An embedded PostgreSQL that dies is
 * started again, or svc exits 1. SIGINT/SIGTERM stop everything in order: the web server (in-flight
 * requests finish), the worker (running jobs finish or are released), the maintenance process (its
 * merge in flight finishes), the database; then exit 0.
 */
export async function runStartCommand(env: CliEnv, { part, supervising }: { part: Part; supervising: boolean }): Promise<void> {
  if (part !== "all" && !env.DATABASE_URL) {
    throw new UsageError(`svc start ${part} runs one part alone against a shared database: set DATABASE_URL`);
  }
  if (!supervising) return runInOwnProcessGroup(SUPERVISOR_FLAG);

  // One JSON line per event (pretty on a terminal), as web and worker log theirs, under the name "svc".
  const log = createLogger({ name: "svc", level: env.LOG_LEVEL });
  let stopping = false;
  let database: DatabaseHandle | undefined;
  const children: { name: string; child: SupervisedChild; graceMs: number }[] = [];
  let stopStartedAt = 0;
  let forced = false;
  const shutdown = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    stopStartedAt = Date.now();
    // The whole stop fits in SVC_SHUTDOWN_GRACE_MS: each part gets what is left of it, then SIGKILL.
    const deadline = stopStartedAt + env.SVC_SHUTDOWN_GRACE_MS;
    log.info({ grace_ms: env.SVC_SHUTDOWN_GRACE_MS }, "stopping svc: web, worker, maintenance, then PostgreSQL (a second Ctrl+C forces it)");
    // Web first: no new requests while the worker and the database are still there for the last ones.
    for (const { name, child, graceMs } of children) {
      log.info({ part: name }, `stopping ${name}`);
      await child.stop(forced ? 0 : Math.max(0, Math.min(graceMs, deadline - Date.now())));
      log.info({ part: name }, `${name} stopped`);
    }
    if (database?.embedded) {
      log.info({ part: "postgres" }, "stopping PostgreSQL");
      await database.stop().then(
        () => log.info({ part: "postgres" }, "PostgreSQL stopped"),
        (error: unknown) => log.error({ part: "postgres", err: messageOf(error) }, "PostgreSQL did not stop cleanly"),
      );
    }
    process.exit(forced && exitCode === 0 ? 130 : exitCode);
  };
  // A signal during the stop, other than the first one arriving again through the wrappers, forces it:
  // the remaining children are killed at once and PostgreSQL gets its fast shutdown.
  const onSignal = () => {
    if (!stopping) return void shutdown(0);
    if (forced || Date.now() - stopStartedAt < SAME_STOP_WINDOW_MS) return;
    forced = true;
    log.warn("forced stop: killing what is still running");
    for (const { child } of children) void child.stop(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  // The process that started this one (runInOwnProcessGroup) is gone: nobody is left to stop svc.
  process.on("disconnect", () => void shutdown(0));

  database = await openDatabase(env);
  if (database.embedded) log.info({ part: "postgres", data_dir: env.SVC_DATA_DIR }, "embedded PostgreSQL running");
  else log.info({ part: "postgres" }, "using the database at DATABASE_URL");
  await prepareDatabase(database.databaseUrl);
  if (part === "all") await printFirstAdminKey(database.databaseUrl);
  if (stopping) return;

  const childEnv = { ...process.env, DATABASE_URL: database.databaseUrl, PORT: String(env.PORT), SVC_INDEX_DIR: indexDirOf(env) };
  if (part !== "worker") {
    const web = superviseChild({ name: "web", args: [...WEB_NODE_FLAGS, path.join(REPO_ROOT, "apps/web/dist/server.js")], cwd: path.join(REPO_ROOT, "apps/web"), env: childEnv, log });
    children.push({ name: "web", child: web, graceMs: WEB_GRACE_MS });
    log.info({ url: `http://localhost:${env.PORT}` }, `svc is starting on http://localhost:${env.PORT} (API under /api; Ctrl+C stops it)`);
  }
  if (part === "all" || part === "worker") {
    // Beside its own maintenance process, the worker leaves the index's maintenance to it.
    const workerEnv = { ...WORKER_MALLOC_ENV, ...childEnv, ...(part === "all" && { SVC_WORKER_MAINTAINS_INDEX: "false" }) };
    const worker = superviseChild({
      name: "worker",
      args: [...WORKER_NODE_FLAGS, path.join(REPO_ROOT, "apps/worker/dist/main.js")],
      cwd: REPO_ROOT,
      env: workerEnv,
      log,
      niceness: env.SVC_WORKER_NICE,
    });
    children.push({ name: "worker", child: worker, graceMs: env.SVC_SHUTDOWN_GRACE_MS });
  }
  if (part === "all" || part === "maintenance") {
    const maintenance = superviseChild({
      name: "maintenance",
      args: [...MAINTENANCE_NODE_FLAGS, path.join(REPO_ROOT, "apps/worker/dist/maintain.js")],
      cwd: REPO_ROOT,
      env: { ...MAINTENANCE_ENV, ...childEnv },
      log,
      niceness: env.SVC_INDEX_MAINTENANCE_NICE,
    });
    children.push({ name: "maintenance", child: maintenance, graceMs: env.SVC_SHUTDOWN_GRACE_MS });
  }
  watchEmbeddedDatabase(database, env, log, {
    isStopping: () => stopping,
    restarted: (handle) => (database = handle),
    failed: () => void shutdown(1),
  });
}

/**
 * An embedded server that dies is started again on the same data and port (web and worker reconnect
 * by themselves); after DATABASE_RESTART_ATTEMPTS failures in a row svc stops with a clear message.
 */
function watchEmbeddedDatabase(
  database: DatabaseHandle,
  env: CliEnv,
  log: Logger,
  on: { isStopping: () => boolean; restarted: (handle: DatabaseHandle) => void; failed: () => void },
): void {
  void database.exited?.then(async (cause) => {
    if (on.isStopping()) return;
    log.warn({ part: "postgres", cause }, `embedded PostgreSQL exited (${cause}); restarting it`);
    let lastError: unknown;
    for (let attempt = 1; attempt <= DATABASE_RESTART_ATTEMPTS && !on.isStopping(); attempt++) {
      try {
        const handle = await openDatabase(env);
        on.restarted(handle);
        log.info({ part: "postgres", attempt }, "embedded PostgreSQL running again");
        watchEmbeddedDatabase(handle, env, log, on);
        return;
      } catch (error) {
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
      }
    }
    if (on.isStopping()) return;
    log.fatal(
      { part: "postgres", data_dir: env.SVC_DATA_DIR, err: firstLine(lastError) },
      `embedded PostgreSQL could not be restarted (${firstLine(lastError)}); stopping`,
    );
    on.failed();
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function firstLine(error: unknown): string {
  return messageOf(error).split("\n")[0] ?? "";
}

async function printFirstAdminKey(databaseUrl: string): Promise<void> {
  const db = createDb({ databaseUrl, poolSize: 1 });
  try {
    if ((await countActiveApiKeys({ db })) > 0) return;
    const { key } = await createApiKey({ db, name: "initial admin", role: "admin" });
    console.log(
      [
        "",
        "No API key existed, so an admin key was created. It is shown only this once; keep it:",
        `  ${key}`,
        "Create more with: pnpm svc keys create --name NAME --role admin",
        "",
      ].join("\n"),
    );
  } finally {
    await db.$disconnect();
  }
}
