import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { databaseName, describeDatabase, isPgError, withServerClient } from "./postgres";

/**
 * Applies the pending migrations in prisma/migrations to the database, as `migrate:deploy` does: the
 * same Prisma 6 CLI wrapper, in a child process, so `_prisma_migrations` keeps Prisma's bookkeeping.
 * Several processes may call it at once (the CLI takes an advisory lock). Throws with the CLI's
 * output when a migration fails.
 */
export async function applyMigrations(databaseUrl: string): Promise<void> {
  const script = path.join(findPackageDir(), "scripts", "prisma6.mjs");
  const { failure, output } = await runNode(script, ["migrate", "deploy"], { ...process.env, DATABASE_URL: databaseUrl });
  if (failure) throw new Error(`Applying migrations to ${describeDatabase(databaseUrl)} failed (${failure}):\n${output}`);
}

/**
 * The migrations this build ships (prisma/migrations' folder names, as `_prisma_migrations` records
 * them), in order; readiness compares them with what the database has applied.
 */
export function listMigrationNames(): string[] {
  const dir = path.resolve(findPackageDir(), "../../prisma/migrations");
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Creates the database named in the URL unless it exists (through the server's `postgres` database). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await withServerClient(databaseUrl, async (client) => {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (existing.rowCount) return;
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } catch (error) {
      // Another process created it since the check: duplicate_database, or unique_violation on
      // pg_database's name index when both CREATEs ran at the same moment.
      if (!isPgError(error, "42P04") && !isPgError(error, "23505")) throw error;
    }
  });
}

/**
 * packages/db, which holds the migrate scripts. Run from source, that is this file's parent folder;
 * when an app bundles this module (tsup inlines workspace packages), the app's dependency on @svc/db
 * leads there instead.
 */
function findPackageDir(): string {
  const sourceParent = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  if (existsSync(path.join(sourceParent, "scripts", "prisma6.mjs"))) return sourceParent;
  return path.dirname(createRequire(import.meta.url).resolve("@svc/db/package.json"));
}

/** Runs a node script; `failure` says how it failed, if it did, and `output` is stdout and stderr. */
function runNode(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ failure?: string; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      const failure = exitCode === 0 ? undefined : signal ? `killed by ${signal}` : `exit code ${exitCode}`;
      resolve({ failure, output: output.trim() });
    });
  });
}
