// The production server (dist/server.js: Next behind the node:http front) in a child process, for
// tests that go through real HTTP: a browser, cookies, the CSRF checks.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findFreePort, waitFor } from "@svc/db/testing";

const serverEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/server.js");

export interface ProductionServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** What the server printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export async function startProductionServer({ databaseUrl, env = {} }: { databaseUrl: string; env?: Record<string, string> }): Promise<ProductionServer> {
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [serverEntry], {
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl, PORT: String(port), HOSTNAME: "127.0.0.1", NODE_ENV: "production" },
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
  return { base, output: () => output, stop };
}
