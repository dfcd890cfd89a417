import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * Stops (SIGSTOP) every process of the PostgreSQL cluster in `dataDir`, its postmaster and all its
 * descendants (backends, background workers), as a paused host or a partition would look to its
 * clients: sockets stay open, nothing answers. Returns the function that resumes them (SIGCONT);
 * call it in a `finally`. Only that cluster's processes are touched.
 */
export async function freezePostgres(dataDir: string): Promise<() => void> {
  const postmaster = Number((await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0]);
  if (!Number.isInteger(postmaster) || postmaster <= 0) throw new Error(`no postmaster pid in ${dataDir}`);
  const pids = [postmaster, ...(await descendantsOf(postmaster))];
  // The postmaster first, so it forks no new backend meanwhile; then the ones it had.
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  for (const pid of await descendantsOf(postmaster)) {
    if (pids.includes(pid)) continue;
    pids.push(pid);
    process.kill(pid, "SIGSTOP");
  }
  return () => {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // Gone meanwhile: nothing to resume.
      }
    }
  };
}

/** Every process below `root`, read from /proc (Linux). */
async function descendantsOf(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after its last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(ppid)) parents.set(pid, ppid);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}
