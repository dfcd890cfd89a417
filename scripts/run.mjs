#!/usr/bin/env node
// The entry point behind `pnpm start`, `pnpm test` and `pnpm svc`. It needs nothing but Node.js and
// pnpm: it installs the workspace's dependencies (a no-op when they are current) and builds before
// it hands over, so the README's two commands work on a fresh clone.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [command, ...args] = process.argv.slice(2);

const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  CHECKPOINT_DISABLE: "1",
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
};

function run(file, fileArgs, { quiet = false } = {}) {
  // Progress goes to stderr so that stdout carries only the command's own output (a new key, say).
  const result = spawnSync(file, fileArgs, { cwd: root, env, stdio: ["inherit", quiet ? 2 : "inherit", "inherit"] });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const pnpm = process.platform === "win32" ? "pnpm.cmd" : "pnpm";
const turbo = path.join(root, "node_modules", ".bin", "turbo");
const cli = path.join(root, "apps", "cli", "dist", "svc.js");

switch (command) {
  case "start":
    run(pnpm, ["install", "--frozen-lockfile"], { quiet: true });
    run(turbo, ["run", "build", "--output-logs=errors-only"], { quiet: true });
    run(process.execPath, [cli, "start", ...args]);
    break;
  case "test":
    run(pnpm, ["install", "--frozen-lockfile"], { quiet: true });
    run(turbo, ["run", "test", "--concurrency=1", ...args]);
    break;
  case "svc":
    run(pnpm, ["install", "--frozen-lockfile"], { quiet: true });
    run(turbo, ["run", "build", "--filter=@svc/cli", "--output-logs=errors-only"], { quiet: true });
    run(process.execPath, [cli, ...args]);
    break;
  default:
    console.error("usage: node scripts/run.mjs start|test|svc [args…]");
    process.exit(2);
}
