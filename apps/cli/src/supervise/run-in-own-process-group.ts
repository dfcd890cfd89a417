import { spawn } from "node:child_process";

/**
 * Runs this same command again, with `flag` added, as the leader of a new process group, passes it
 * SIGINT/SIGTERM/SIGHUP as SIGTERM, and exits with its exit code.
 *
 * Why: Ctrl+C in a terminal signals the whole foreground process group at once, the embedded
 * PostgreSQL included, which would shut down before the web server and the worker had finished.
 * In a group of its own, the supervisor is the only one told, and it stops everything in order. The
 * IPC channel tells it when this process is gone (killed with -9), so it then stops too.
 */
export async function runInOwnProcessGroup(flag: string): Promise<never> {
  const [entry, ...args] = process.argv.slice(1);
  if (!entry) throw new Error("no entry script in process.argv");
  const supervisor = spawn(process.execPath, [...process.execArgv, entry, ...args, flag], {
    detached: true,
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => supervisor.kill("SIGTERM"));
  const exitCode = await new Promise<number>((resolve) => {
    supervisor.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    supervisor.once("error", () => resolve(1));
  });
  process.exit(exitCode);
}
