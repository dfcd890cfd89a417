#!/usr/bin/env node
// The entry point behind `pnpm start`, `pnpm test` and `pnpm svc`. It needs nothing but Node.js and
// pnpm: it installs the workspace's dependencies (a no-op when they are current) and builds before
// it hands over, so the README's two commands work on a fresh clone.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildWithProgress } from "./build-progress.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [command, ...args] = process.argv.slice(2);

const REQUIRED_NODE_MAJOR = 24;
if (Number(process.versions.node.split(".")[0]) < REQUIRED_NODE_MAJOR) await runUnderRequiredNode();

// svc runs on Node 24 LTS (docs/decisions.md "Runtime"). On a machine with an older Node (20 reached
// end of life, 22 is in maintenance), Node 24 comes from the npm registry once, into a cache
// folder outside the clone, and this script runs again under it with that folder first on PATH, so pnpm,
// turbo, Next and the tests all run on it too. Never returns.
async function runUnderRequiredNode() {
  const cacheHome = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache");
  const prefix = path.join(cacheHome, "svc", `node-${REQUIRED_NODE_MAJOR}`);
  const node = path.join(prefix, "bin", "node");
  if (!existsSync(node)) {
    console.error(`svc needs Node ${REQUIRED_NODE_MAJOR} (this is ${process.version}); installing it once into ${prefix}`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const installed = spawnSync(npm, ["install", "--global", "--prefix", prefix, `node@${REQUIRED_NODE_MAJOR}`], {
      stdio: ["ignore", 2, "inherit"],
    });
    if (installed.status !== 0 || !existsSync(node)) {
      console.error(`could not install Node ${REQUIRED_NODE_MAJOR}: install it yourself and run this again`);
      process.exit(1);
    }
  }
  const child = spawn(node, process.argv.slice(1), {
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ""}` },
  });
  // The supervisor behind `start` stops in order on SIGINT/SIGTERM: pass them on, leave with its code.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  await new Promise(() => child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0))));
}

const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  CHECKPOINT_DISABLE: "1",
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
};

function run(file, fileArgs, { quiet = false, silent = false } = {}) {
  // Progress goes to stderr so that stdout carries only the command's own output (a new key, say);
  // `silent` keeps it for a failure, when it is the explanation.
  const stdio = silent ? ["ignore", "pipe", "pipe"] : ["inherit", quiet ? 2 : "inherit", "inherit"];
  const result = spawnSync(file, fileArgs, { cwd: root, env, stdio, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (silent) process.stderr.write(Buffer.concat([result.stdout, result.stderr]));
    process.exit(result.status ?? 1);
  }
}

/**
 * Runs the supervisor and leaves only when it has: a Ctrl+C reaches this process with the rest of the
 * terminal's foreground group, and dying of it here would hand the prompt back (and pnpm exit 1) while
 * svc is still stopping. Signals are passed on, for a SIGINT or SIGTERM sent to pnpm alone, without a
 * terminal; the supervisor counts the copies that arrive together as one.
 */
async function runToTheEnd(file, fileArgs) {
  const child = spawn(file, fileArgs, { cwd: root, env, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
    child.once("error", () => resolve(1));
  });
  process.exit(code);
}

const pnpm = process.platform === "win32" ? "pnpm.cmd" : "pnpm";
const turbo = path.join(root, "node_modules", ".bin", "turbo");
const cli = path.join(root, "apps", "cli", "dist", "svc.js");

/** Modification time in ms, 0 when the path does not exist. */
function modifiedAt(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/**
 * Whether the CLI bundle is newer than everything it is built from: the CLI's and the packages'
 * sources and manifests, the Prisma schema, the lockfile; and node_modules installed from this
 * lockfile (pnpm keeps a copy of the one it installed in node_modules/.pnpm/lock.yaml).
 * Statting a few hundred files takes milliseconds; `pnpm install` + turbo take seconds even when
 * there is nothing to do, which `pnpm svc keys list` should not pay each time.
 */
function cliIsCurrent() {
  const built = modifiedAt(cli);
  if (built === 0 || readText(path.join(root, "node_modules", ".pnpm", "lock.yaml")) !== readText(path.join(root, "pnpm-lock.yaml"))) return false;
  const inputs = [
    path.join(root, "package.json"),
    path.join(root, "pnpm-lock.yaml"),
    path.join(root, "tsup.shared.ts"),
    path.join(root, "prisma", "schema.prisma"),
    path.join(root, "apps", "cli", "package.json"),
    path.join(root, "apps", "cli", "tsup.config.ts"),
  ];
  const folders = [path.join(root, "apps", "cli", "src")];
  for (const name of readdirSync(path.join(root, "packages"))) {
    inputs.push(path.join(root, "packages", name, "package.json"));
    folders.push(path.join(root, "packages", name, "src"));
  }
  for (const folder of folders) {
    for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) inputs.push(path.join(entry.parentPath, entry.name));
    }
  }
  return inputs.every((input) => modifiedAt(input) <= built);
}

/** Builds (what changed only), a line per package on stderr; a failed build ends here with its log. */
async function build(turboArgs = []) {
  const code = await buildWithProgress({ turbo, cwd: root, env, args: turboArgs });
  if (code !== 0) process.exit(code);
}

switch (command) {
  case "start":
    run(pnpm, ["install", "--frozen-lockfile"], { quiet: true });
    await build();
    await runToTheEnd(process.execPath, [cli, "start", ...args]);
    break;
  case "test":
    run(pnpm, ["install", "--frozen-lockfile"], { quiet: true });
    run(turbo, ["run", "test", "--concurrency=1", ...args]);
    break;
  case "svc":
    if (!cliIsCurrent()) {
      process.stderr.write("Building the svc CLI (its sources changed)…\n");
      run(pnpm, ["install", "--frozen-lockfile"], { silent: true });
      await build(["--filter=@svc/cli"]);
    }
    // In this process rather than a child: one Node.js start fewer. The CLI sees the command line it
    // would have had as `node apps/cli/dist/svc.js …` (`svc start` runs that again in its own group).
    process.argv = [process.execPath, cli, ...args];
    await import(pathToFileURL(cli).href);
    break;
  default:
    console.error("usage: node scripts/run.mjs start|test|svc [args…]");
    process.exit(2);
}
