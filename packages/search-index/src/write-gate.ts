/**
 * Keeps a table's compaction and its updating writes (a replace's merge, a delete, a key refresh) apart.
 * Compaction rewrites fragments, and a commit that deleted rows in one of them meanwhile makes the
 * compaction's commit fail: under a steady stream of re-ingests every retry failed, so the table was
 * never compacted or merged and the rows every search scans grew without bound (bench/RESULTS.md,
 * session 15). Updating writes share the gate; a compaction holds it alone, waiting for those in
 * flight and holding back new ones until it commits. Appends touch no existing fragment and do not
 * take it. A WriteGate keeps them apart within one process; a TableGates of the index's opener can
 * keep them apart across processes (core's advisory locks, for the worker and the maintenance process).
 */
export interface TableGate {
  /** Runs an updating write, after any compaction in progress. */
  write<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` alone: once the updating writes in flight are done, and before any new one starts. */
  alone<T>(work: () => Promise<T>): Promise<T>;
}

/** The gate of each table of an opened index, by table name: the same gate for the same name. */
export type TableGates = (tableName: string) => TableGate;

/** A TableGate within this process. */
export class WriteGate implements TableGate {
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

/** Gates within this process, one per table name: an index opened without gates of its own gets these. */
export function inProcessGates(): TableGates {
  const gates = new Map<string, WriteGate>();
  return (tableName) => {
    let gate = gates.get(tableName);
    if (gate === undefined) gates.set(tableName, (gate = new WriteGate()));
    return gate;
  };
}
