// `svc start` as a real supervisor for the e2e tests: its child processes, its log lines, and the
// embedded PostgreSQL it runs in a temporary data directory on a free port.
import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { postTestIngestion, testIngestionBody } from "@svc/core/testing";
import { findFreePort, waitFor, type WaitForOptions } from "@svc/db/testing";
import { SVC_ENTRY } from "./run-svc";

export const SLOW: WaitForOptions = { timeoutMs: 60_000, retryOnError: true };

const started: ChildProcess[] = [];
/** Kills (-9) every process run() started or trackStarted() was given; call it in afterAll. */
export function killStarted(): void {
  for (const child of started) child.kill("SIGKILL");
}

/** A process a test spawned itself, for killStarted. */
export function trackStarted(child: ChildProcess): void {
  started.push(child);
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Every process below `pid`, with its command line (from /proc: the test kills real processes). */
export async function descendants(pid: number): Promise<{ pid: number; commandLine: string }[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // The command name in parentheses may hold spaces; the parent pid is the second field after it.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const found: { pid: number; commandLine: string }[] = [];
  const visit = async (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      const commandLine = (await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "")).split("\0").join(" ");
      found.push({ pid: child, commandLine });
      await visit(child);
    }
  };
  await visit(pid);
  return found;
}

/** The JSON log lines in `output` (other lines, such as the first admin key's, left out). */
export function logLines(output: string): Record<string, unknown>[] {
  return output.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Where the first of the supervisor's log lines that has all of `fields` stands among the log lines, or -1. */
export function supervisorLine(output: string, fields: Record<string, unknown>): number {
  return logLines(output).findIndex((line) => line.name === "svc" && Object.entries(fields).every(([key, value]) => line[key] === value));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function processRunning(root: number, commandPart: string): Promise<number | undefined> {
  return (await descendants(root)).find((process) => process.commandLine.includes(commandPart))?.pid;
}

/** Runs `test` with a PostgreSQL data directory the embedded server's `postgres` user (when running as root) can reach, removed after. */
export async function inDataDir(test: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-supervise-"));
  try {
    await chmod(dataDir, 0o755);
    await test(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `svc start` with its embedded PostgreSQL in `dataDir`, once it has printed the first admin key. */
export async function startWithEmbeddedDatabase(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const [port, pgPort] = [await findFreePort(), await findFreePort()];
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SVC_DATA_DIR: dataDir, SVC_EMBEDDED_PG_PORT: String(pgPort), ...extraEnv };
  delete env.DATABASE_URL;
  const svc = run(process.execPath, [SVC_ENTRY, "start"], env);
  const key = await waitFor("the first admin key", () => /^\s+(svc_\S+)$/m.exec(svc.output())?.[1], { ...SLOW, describe: svc.output });
  const ingest = async (id: string) =>
    (await postTestIngestion(`http://127.0.0.1:${port}`, key, testIngestionBody({ id, title: id, text: id }))).status;
  await waitFor("the web server", async () => ((await ingest("first")) === 200 ? true : undefined), { ...SLOW, describe: svc.output });
  return { svc, root: svc.child.pid ?? 0, env, port, pgPort, key, ingest };
}
