import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { countActiveApiKeys, createApiKey, prepareDatabase } from "@svc/core";
import { createDb } from "@svc/db";
import { openDatabase } from "../database";
import { REPO_ROOT, type CliEnv } from "../env";

/**
 * `svc start`: the database (embedded unless DATABASE_URL is set), migrations and queues, a first
 * admin key if there is none, then the web server and the worker. Stops everything on SIGINT or
 * SIGTERM, or when either process dies.
 */
export async function runStartCommand(env: CliEnv): Promise<void> {
  const database = await openDatabase(env);
  console.log(database.embedded ? `Embedded PostgreSQL running, data in ${env.SVC_DATA_DIR}` : "Using the database at DATABASE_URL");
  await prepareDatabase(database.databaseUrl);
  await printFirstAdminKey(database.databaseUrl);

  const childEnv = { ...process.env, DATABASE_URL: database.databaseUrl, PORT: String(env.PORT) };
  const children = [
    startChild("web", process.execPath, [path.join(REPO_ROOT, "apps/web/dist/server.js")], path.join(REPO_ROOT, "apps/web"), childEnv),
    startChild("worker", process.execPath, [path.join(REPO_ROOT, "apps/worker/dist/main.js")], REPO_ROOT, childEnv),
  ];
  console.log(`svc is starting on http://localhost:${env.PORT} (API under /api; Ctrl+C stops it)`);

  let stopping = false;
  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.map((child) => stopChild(child)));
    await database.stop();
    process.exit(exitCode);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stopAll(0));
  for (const child of children) {
    child.on("exit", (code) => {
      if (!stopping) console.error(`[svc] ${child.svcName} exited with code ${code}; stopping`);
      void stopAll(code === 0 ? 1 : (code ?? 1));
    });
  }
}

type NamedChild = ChildProcess & { svcName: string };

function startChild(name: string, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): NamedChild {
  const child = spawn(command, args, { cwd, env, stdio: "inherit" }) as NamedChild;
  child.svcName = name;
  return child;
}

/** SIGTERM, then SIGKILL if the process has not exited within the grace period. */
function stopChild(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
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
