import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import type { Logger } from "@svc/core";

export interface SupervisedChild {
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; no restart after this. */
  stop(graceMs: number): Promise<void>;
}

const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that ran this long before dying counts as healthy: its next restart is quick again. */
const STABLE_AFTER_MS = 60_000;

/**
 * Runs a child process and starts it again whenever it dies, after a delay that doubles with each
 * quick death (0.5 s up to 30 s), logging one line that names the cause (exit code or signal) and the
 * delay. stdio is shared with this process; an IPC channel lets the child notice when this process dies.
 * `niceness` lowers the child's CPU priority (Unix nice) as soon as it is spawned, before its runtime
 * starts the threads that inherit it (Linux keeps a nice value per thread).
 */
export function superviseChild({
  name,
  args,
  cwd,
  env,
  log,
  niceness = 0,
}: {
  name: string;
  /** Arguments to this Node binary (the child's entry script first). */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  niceness?: number;
}): SupervisedChild {
  let stopping = false;
  let quickDeaths = 0;
  let child: ChildProcess;
  let restartTimer: NodeJS.Timeout | undefined;

  const launch = () => {
    const startedAt = Date.now();
    // The IPC channel carries no messages: its closing tells the child that this process is gone.
    child = spawn(process.execPath, args, { cwd, env, stdio: ["inherit", "inherit", "inherit", "ipc"] });
    child.on("error", (error) => log.error({ part: name, err: error.message }, `${name} could not be started: ${error.message}`));
    if (niceness !== 0 && child.pid !== undefined) lowerPriority(child.pid, niceness, name, log);
    child.once("exit", (code, signal) => {
      if (stopping) return;
      quickDeaths = Date.now() - startedAt > STABLE_AFTER_MS ? 0 : quickDeaths + 1;
      const delayMs = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (quickDeaths - 1));
      const cause = signal ? `killed by ${signal}` : `exit code ${code}`;
      log.warn(
        { part: name, cause, exit_code: code, signal, ran_ms: Date.now() - startedAt, restart_in_ms: delayMs },
        `${name} exited (${cause}); restarting it in ${delayMs / 1000} s`,
      );
      restartTimer = setTimeout(launch, delayMs);
    });
  };
  launch();

  return {
    stop: (graceMs) => {
      stopping = true;
      clearTimeout(restartTimer);
      return stopProcess(child, graceMs);
    },
  };
}

/** A priority that cannot be set (a platform without nice, a sandbox) leaves the child as it is, with a warning. */
function lowerPriority(pid: number, niceness: number, name: string, log: Logger): void {
  try {
    os.setPriority(pid, niceness);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ part: name, niceness, err: message }, `${name} runs at normal priority: could not lower it (${message})`);
  }
}

/** SIGTERM, then SIGKILL if the process has not exited within the grace period. */
function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
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
