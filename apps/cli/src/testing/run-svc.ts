import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKey } from "@svc/core";
import { createTestDatabase, findFreePort, waitFor, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll } from "vitest";

export const SVC_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/svc.js");

export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI as a child process, whatever its exit code; `input` goes to its stdin. */
export function runSvc(args: string[], { env = {}, input }: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<SvcRun> {
  const child = spawn(process.execPath, [SVC_ENTRY, ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningSvc {
  database: TestDatabase;
  /** The API root, http://127.0.0.1:<port>/api */
  apiUrl: string;
  /** A curator key, the role `svc ingest` is for. */
  curatorKey: string;
  /**
   * The environment for `svc …` against this svc: DATABASE_URL for the operator commands, SVC_URL for
   * ingest, and its own SVC_INDEX_DIR (the index of no other test's svc).
   */
  env: NodeJS.ProcessEnv;
}

/**
 * `svc start` (web and worker) on a database of its own, for the whole test file, stopped with
 * SIGTERM after it: the CLI's commands then run against a real svc, as an operator's would. `env`
 * adds to the environment `svc start` runs in (its web's and worker's settings).
 */
export function useRunningSvc({ env = {} }: { env?: NodeJS.ProcessEnv } = {}): RunningSvc {
  const svc = {} as RunningSvc;
  let stop = async () => {};
  let indexDir = "";
  beforeAll(async () => {
    svc.database = await createTestDatabase();
    indexDir = await mkdtemp(path.join(os.tmpdir(), "svc-index-"));
    svc.curatorKey = (await createApiKey({ db: svc.database.db, name: "ingest tests", role: "curator" })).key;
    const port = await findFreePort();
    svc.apiUrl = `http://127.0.0.1:${port}/api`;
    svc.env = { DATABASE_URL: svc.database.databaseUrl, SVC_URL: svc.apiUrl, SVC_API_KEY: svc.curatorKey, SVC_INDEX_DIR: indexDir };
    // No event-loop shedding: on a busy test machine a stray 429 would slow every case down.
    const child = spawn(process.execPath, [SVC_ENTRY, "start"], {
      env: { ...process.env, ...svc.env, PORT: String(port), SVC_MAX_EVENT_LOOP_DELAY_MS: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
    child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    };
    // Ready means the database, the migrations and a worker heartbeat: web and worker are both up.
    await waitFor("svc start (web and worker ready)", async () => ((await fetch(`${svc.apiUrl}/ready`)).ok ? true : undefined), {
      timeoutMs: 120_000,
      retryOnError: true,
      describe: () => output,
    });
  });
  afterAll(async () => {
    await stop();
    await svc.database?.drop();
    if (indexDir) await rm(indexDir, { recursive: true, force: true });
  });
  return svc;
}
