/** When a worker merges new rows: see MergeSchedule. */
export interface MergeScheduleOptions {
  /** Rows waiting that are merged whether or not searches read the table, at least. */
  tailRows: number;
  /** Above `tailRows`: the share of the table's rows that may wait while nobody searches it. */
  tailShare: number;
  /** A table a search read within this many seconds has its rows merged as they come. */
  searchedWithinSeconds: number;
  /** A table no row was written to for this many seconds has the rest merged. */
  quietSeconds: number;
  /**
   * How long a due merge may wait while the worker reads, chunks and writes a large document (see
   * `due`): 60 s by default, so that a stream of them cannot hold merges off for good.
   */
  heldAtMostSeconds?: number;
}

/** A table's rows as a maintenance run finds them. */
export interface TableRows {
  /** Rows written since the last merge. */
  unmerged: number;
  /** All its rows, merged or not. */
  total: number;
}

/**
 * When a worker merges a table's new rows into its FTS index. A merge rebuilds the whole index
 * (LanceDB 0.39 offers JavaScript no cheaper one), so it costs what the table holds, not what it
 * merges: ~4 s of both cores at 100,000 rows here, ~70 s at 1,000,000. It is done for searches only:
 * rows not merged are found all the same, by a scan each search pays (~10-20 µs a row). So a table
 * searched within `searchedWithinSeconds` is merged whenever rows wait, which keeps searches fast
 * under a steady stream of writes. One nobody searches is merged once its writes pause for
 * `quietSeconds`, or once the rows waiting reach `tailRows` or `tailShare` of the table, whichever
 * is more: merges then cost each written row the same at any size of the table (a merge of n rows
 * every `tailShare` × n rows), where back to back they took the CPU indexing needed, more so as the
 * table grew (bench/RESULTS.md, session 16).
 */
export class MergeSchedule {
  /** Each generation's unmerged rows as last seen, and since when they stood at that. */
  private readonly seen = new Map<number, { unmerged: number; since: number }>();
  /** Since when a due merge of each generation has waited for a large document's write. */
  private readonly heldSince = new Map<number, number>();

  constructor(readonly options: MergeScheduleOptions) {}

  /**
   * Whether generation `generationId`'s waiting rows are merged now; `searched` within the window.
   * `held`: this process is reading, chunking or writing a large document. A merge rebuilds the whole
   * FTS index in the worker's memory, and one beside a 20 MiB document's write stacked its buffers on
   * the document's (bench/RESULTS.md, issue 44 §3), so a due merge waits until that write ends, for at
   * most `heldAtMostSeconds`; its rows are found meanwhile, by the scan every search makes of them.
   */
  due(generationId: number, rows: TableRows, searched: boolean, now = Date.now(), held = false): boolean {
    const { unmerged, total } = rows;
    const last = this.seen.get(generationId);
    const since = last?.unmerged === unmerged ? last.since : now;
    this.seen.set(generationId, { unmerged, since });
    if (unmerged === 0) return false;
    const bound = Math.max(this.options.tailRows, this.options.tailShare * total);
    const due = searched || unmerged >= bound || now - since >= this.options.quietSeconds * 1000;
    if (!due || !held) {
      this.heldSince.delete(generationId);
      return due;
    }
    const heldSince = this.heldSince.get(generationId) ?? now;
    this.heldSince.set(generationId, heldSince);
    return now - heldSince >= (this.options.heldAtMostSeconds ?? 60) * 1000;
  }
}
