import { perTable } from "./per-table";

/**
 * Keeps a table's compaction and this process's updating writes (a replace's merge, a delete) apart.
 * Compaction rewrites fragments, and a commit that deleted rows in one of them meanwhile makes the
 * compaction's commit fail: under a steady stream of re-ingests every retry failed, so the table was
 * never compacted or merged and the rows every search scans grew without bound (bench/RESULTS.md,
 * session 15). Updating writes share the gate; a compaction holds it alone, waiting for those in
 * flight and holding back new ones until it commits. Appends touch no existing fragment and do not
 * take it. Another process's writes still race a compaction: its commit conflict is retried.
 */
export class WriteGate {
  private writes = 0;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  /** Runs an updating write, after any compaction in progress. */
  async write<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    this.writes++;
    try {
      return await work();
    } finally {
      this.writes--;
      if (this.writes === 0) this.drained?.();
    }
  }

  /** Runs `work` alone: once the updating writes in flight are done, and before any new one starts. */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    let open!: () => void;
    this.closed = new Promise((resolve) => (open = resolve));
    try {
      if (this.writes > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      return await work();
    } finally {
      this.drained = null;
      this.closed = null;
      open();
    }
  }
}

/** Each open table's gate. */
export const writeGate = perTable(() => new WriteGate());
