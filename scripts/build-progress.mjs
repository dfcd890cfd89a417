// `turbo run build` with a line on stderr as each package starts and ends building, for run.mjs: a
// first build takes minutes, and turbo's `--output-logs=errors-only` shows nothing meanwhile.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Builds with turbo (`args` after `turbo run build`, e.g. a `--filter`), writing to `out` (stderr) one
 * line per package started and per package built, with its time; nothing when everything is cached.
 * Turbo's dry run says which tasks will run and what each waits for; the real run groups each task's
 * log and prints it when the task ends (`--log-order=grouped`), which is the "built" line, and a task
 * starts once the tasks it depends on are done. Turbo's logs are kept: a failed build prints those of
 * the packages that failed, as `errors-only` would. Resolves to turbo's exit code.
 * A package's "building" line is when it may start: turbo runs up to 10 tasks at once, more than svc
 * has packages, so it is when it does.
 */
/** Turbo's command for a task whose package has no such script. */
const NO_SCRIPT = "<NONEXISTENT>";

export async function buildWithProgress({ turbo, cwd, env, args = [], out = process.stderr }) {
  const dry = spawnSync(turbo, ["run", "build", ...args, "--dry=json"], { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (dry.status !== 0) {
    out.write(dry.stderr);
    return dry.status ?? 1;
  }
  // A package without a build script (bench) has nothing to build, though turbo lists it, never cached.
  const planned = JSON.parse(dry.stdout).tasks.filter((task) => task.command !== NO_SCRIPT);
  const ids = new Set(planned.map((task) => task.taskId));
  const tasks = planned.map((task) => ({
    id: task.taskId,
    name: task.package,
    cached: task.cache?.status === "HIT",
    needs: (task.dependencies ?? []).filter((id) => ids.has(id)),
  }));
  const pending = new Map(tasks.filter((task) => !task.cached).map((task) => [task.id, task]));
  if (pending.size === 0) return runTurbo(turbo, cwd, env, args, () => {}).then(({ code }) => code);

  const started = performance.now();
  const done = new Set(tasks.filter((task) => task.cached).map((task) => task.id));
  const running = new Map();
  const say = (line) => out.write(`build: ${line}\n`);
  const startReady = () => {
    for (const task of pending.values()) {
      if (running.has(task.id) || !task.needs.every((id) => done.has(id))) continue;
      running.set(task.id, performance.now());
      say(`building ${task.name}`);
    }
  };
  say(`${plural(pending.size, "package")} to build${done.size > 0 ? `, ${done.size} up to date` : ""}`);
  startReady();
  const byPrefix = new Map(tasks.map((task) => [`${task.name}:build`, task]));
  const { code, logs, other } = await runTurbo(turbo, cwd, env, args, (prefix, lines) => {
    const task = byPrefix.get(prefix);
    if (!task || done.has(task.id)) return;
    done.add(task.id);
    pending.delete(task.id);
    const took = seconds(performance.now() - (running.get(task.id) ?? started));
    say(lines.some(isErrorLine) ? `${task.name} failed after ${took}` : `built ${task.name} in ${took}`);
    startReady();
  });
  if (code !== 0) {
    const failed = [...logs].filter(([, lines]) => lines.some(isErrorLine));
    for (const [, lines] of failed.length > 0 ? failed : [...logs]) out.write(`${lines.join("\n")}\n`);
    out.write(`${other.join("\n")}\n`);
    return code;
  }
  say(`done in ${seconds(performance.now() - started)}`);
  return 0;
}

/** A line of a failed task's log: turbo's ERROR, pnpm's ELIFECYCLE or ERR_PNPM_…, npm's ERR!. */
function isErrorLine(line) {
  return /\bERR(OR\b|_|!)|ELIFECYCLE|command failed/i.test(line);
}

/**
 * Runs turbo, calling `onTaskEnded(prefix, lines)` with each task's (grouped) log once it is whole:
 * turbo prints a task's log in one piece when the task ends, so a line of another task, or the end
 * of the output, closes it.
 */
function runTurbo(turbo, cwd, env, args, onTaskEnded) {
  const child = spawn(turbo, ["run", "build", ...args, "--output-logs=new-only", "--log-order=grouped"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const logs = new Map();
  const other = [];
  let open = null;
  const close = () => {
    if (open !== null) onTaskEnded(open, logs.get(open));
    open = null;
  };
  const read = (stream) =>
    new Promise((resolve) => {
      const lines = createInterface({ input: stream });
      lines.on("line", (line) => {
        const prefix = /^(\S+:build):(?: |$)/.exec(line)?.[1];
        if (prefix === undefined) return void other.push(line);
        if (prefix !== open) close();
        open = prefix;
        if (!logs.has(prefix)) logs.set(prefix, []);
        logs.get(prefix).push(line);
      });
      lines.on("close", resolve);
    });
  return Promise.all([read(child.stdout), read(child.stderr), new Promise((resolve) => child.once("close", resolve))]).then(([, , code]) => {
    close();
    return { code: code ?? 1, logs, other };
  });
}

function seconds(ms) {
  const total = Math.round(ms / 1000);
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${total % 60} s`;
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
