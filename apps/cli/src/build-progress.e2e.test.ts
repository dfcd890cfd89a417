// scripts/build-progress.mjs (what `pnpm start` and `pnpm svc` build with) on a real turbo, over a
// workspace of packages made for the test (one without a build script): a line per package started and built on stderr,
// nothing on stdout, nothing at all when everything is cached, and a failed package's log.
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./env";

const workspace = await mkdtemp(path.join(os.tmpdir(), "svc-build-progress-"));
afterAll(() => rm(workspace, { recursive: true, force: true }));

async function writePackage(name: string, build: string): Promise<void> {
  const folder = path.join(workspace, "packages", name);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, "package.json"), JSON.stringify({ name: `@t/${name}`, version: "1.0.0", scripts: { build: "node build.js" } }));
  await writeFile(path.join(folder, "build.js"), build);
}

/** Runs buildWithProgress in a Node process of its own, as run.mjs does, in the test workspace. */
function build(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `import { buildWithProgress } from ${JSON.stringify(path.join(REPO_ROOT, "scripts", "build-progress.mjs"))};
process.exitCode = await buildWithProgress({ turbo: ${JSON.stringify(path.join(REPO_ROOT, "node_modules", ".bin", "turbo"))}, cwd: ${JSON.stringify(workspace)}, env: process.env });`;
  // Without the npm_config_* of the command that started the tests (pnpm reads them as its settings).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...env, TURBO_TELEMETRY_DISABLED: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let [stdout, stderr] = ["", ""];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the first build's progress", () => {
  it("prints each package as it starts and ends, in dependency order, then nothing once built, and a failure's log", { timeout: 300_000 }, async () => {
    // The pnpm turbo will run, so that it does not fetch another one to match.
    const pnpmVersion = execFileSync("pnpm", ["--version"], { cwd: os.tmpdir(), encoding: "utf8" }).trim();
    await writeFile(path.join(workspace, "package.json"), JSON.stringify({ name: "tiny", private: true, packageManager: `pnpm@${pnpmVersion}` }));
    // As svc's own: without it, pnpm 12 now and then fails a script on a platform package it cannot fetch.
    await writeFile(path.join(workspace, "pnpm-workspace.yaml"), 'packages:\n  - "packages/*"\npmOnFail: ignore\n');
    // b's build waits for a's (said in turbo.json: a workspace dependency would have pnpm install first).
    await writeFile(
      path.join(workspace, "turbo.json"),
      JSON.stringify({ tasks: { build: { dependsOn: ["^build"], outputs: ["dist/**"] }, "@t/b#build": { dependsOn: ["@t/a#build"], outputs: ["dist/**"] } } }),
    );
    await writePackage("a", 'require("fs").mkdirSync("dist", { recursive: true }); console.log("a built");');
    await writePackage("b", 'console.log("b built");');
    // A package with no build script (as svc's bench): nothing to build, never a line.
    await mkdir(path.join(workspace, "packages", "c"), { recursive: true });
    await writeFile(path.join(workspace, "packages", "c", "package.json"), JSON.stringify({ name: "@t/c", version: "1.0.0", scripts: { lint: "true" } }));
    // As svc's: turbo hashes the files git would track, and its own logs and outputs are not among them.
    await writeFile(path.join(workspace, ".gitignore"), "node_modules\n.turbo\ndist\n");
    execFileSync("git", ["init", "-q"], { cwd: workspace });

    const first = await build();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe("");
    const lines = first.stderr.trimEnd().split("\n");
    expect(lines.map((line) => line.replace(/ in \d+( min \d+)? s$/, " in …"))).toEqual([
      "build: 2 packages to build",
      "build: building @t/a",
      "build: built @t/a in …",
      "build: building @t/b",
      "build: built @t/b in …",
      "build: done in …",
    ]);

    const again = await build();
    expect(again, again.stderr).toEqual({ code: 0, stdout: "", stderr: "" });

    await writePackage("b", 'console.error("b: the disk is full"); process.exit(1);');
    const failed = await build();
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toContain("build: 1 package to build, 1 up to date");
    expect(failed.stderr).toContain("build: building @t/b");
    expect(failed.stderr, failed.stderr).toMatch(/^build: @t\/b failed after \d+ s$/m);
    expect(failed.stderr).toContain("b: the disk is full");
  });
});
