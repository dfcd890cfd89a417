// The production server (dist/server.js: Next behind the node:http front) in a child process, for
// tests that go through real HTTP: a browser, cookies, the CSRF checks.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKey } from "@svc/core";
import { removeTestSearchIndex, testSearchIndex } from "@svc/core/testing";
import { createTestDatabase, findFreePort, waitFor, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll } from "vitest";

const serverEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/server.js");

export interface ProductionServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The server process's id (to read its memory from /proc). */
  pid: number;
  /** What the server printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export async function startProductionServer({ databaseUrl, env = {} }: { databaseUrl: string; env?: Record<string, string> }): Promise<ProductionServer> {
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [serverEntry], {
    // Shedding on event-loop delay, and the in-flight limit adapting to latency, are off unless a test asks for it: on a busy test machine the
    // server's loop stalls now and then, and a stray 429 would fail tests about something else.
    // The search index is the test file's own (testSearchIndex), shared with a worker the test runs.
    env: {
      ...process.env,
      SVC_MAX_EVENT_LOOP_DELAY_MS: "0",
      SVC_ADMISSION_TARGET_MS: "0",
      // Many tests send wrong keys on purpose, all from 127.0.0.1: the throttle is on where a test asks for it.
      SVC_CREDENTIAL_FAILURES_PER_MINUTE: "0",
      SVC_INDEX_DIR: testSearchIndex().uri,
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      NODE_ENV: "production",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const state = await waitFor(
      "the production web server",
      async () => {
        if (child.exitCode !== null) return "exited";
        return (await fetch(`${base}/api/openapi.json`)).ok ? "up" : undefined;
      },
      {
        timeoutMs: 60_000,
        retryOnError: true,
        describe: () => `(run \`pnpm --filter @svc/web build\` first)\n${output}`,
      },
    );
    if (state === "exited") throw new Error(`the production web server exited with code ${child.exitCode}:\n${output}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, pid: child.pid ?? 0, output: () => output, stop };
}

export interface ProductionApp {
  database: TestDatabase;
  /** `http://127.0.0.1:<port>` of the running server. */
  base: string;
  adminKey: string;
}

/**
 * A database of its own, an admin key and the production server on it, for the whole test file.
 * Call at the top level of a test file; the returned object is filled in by beforeAll.
 */
export function useProductionServer({
  adminKeyName = "e2e admin",
  env,
}: { adminKeyName?: string; env?: Record<string, string> } = {}): ProductionApp {
  const app = {} as ProductionApp;
  let server: ProductionServer | undefined;
  beforeAll(async () => {
    app.database = await createTestDatabase();
    app.adminKey = (await createApiKey({ db: app.database.db, name: adminKeyName, role: "admin" })).key;
    server = await startProductionServer({ databaseUrl: app.database.databaseUrl, env });
    app.base = server.base;
  });
  afterAll(async () => {
    await server?.stop();
    await removeTestSearchIndex();
    await app.database?.drop();
  });
  return app;
}

/** The console's session cookie (`name=value`) for `apiKey`, signed in as the console's sign-in form does. */
export async function signInToConsole(base: string, apiKey: string): Promise<string> {
  const response = await fetch(`${base}/api/trpc/session.signIn`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ json: { apiKey } }),
  });
  if (!response.ok) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
}
