import type { Db } from "@svc/db";
import { stampApiKeysUsed } from "./manage-api-keys";

/** A key's "last used" moves at most this often: the console shows it to the minute. */
export const API_KEY_USE_INTERVAL_MS = 60_000;

/**
 * Records when API keys are used (`api_key.last_used_at`, shown by the console and `svc keys list`),
 * without costing a request anything: `record` only notes the key in memory, at most once a minute
 * per key, and one background statement writes every noted key. A request never waits for that
 * write, and a failed write (the database down) is dropped: the next use a minute later tries again.
 * The statement also skips keys another process stamped within the minute, so several web
 * processes write a busy key about once a minute between them.
 */
export class ApiKeyUseRecorder {
  private readonly recordedAt = new Map<number, number>();
  private readonly pending = new Set<number>();
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: { intervalMs?: number; now?: () => number; onError?: (error: unknown) => void } = {},
  ) {}

  /** Notes one use of the key; returns at once. */
  record(apiKeyId: number): void {
    const now = this.options.now?.() ?? Date.now();
    const last = this.recordedAt.get(apiKeyId);
    if (last !== undefined && now - last < this.interval) return;
    this.recordedAt.set(apiKeyId, now);
    this.pending.add(apiKeyId);
    this.writing ??= this.writeAll();
  }

  /** Resolves once every noted use is written (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private get interval(): number {
    return this.options.intervalMs ?? API_KEY_USE_INTERVAL_MS;
  }

  private async writeAll(): Promise<void> {
    try {
      // Off the request's path: the statement starts after the request that noted the key has moved on.
      await new Promise((resolve) => setImmediate(resolve));
      // Uses noted while a statement ran go out in the next one.
      while (this.pending.size > 0) await this.writePending();
    } finally {
      this.writing = undefined;
    }
  }

  private async writePending(): Promise<void> {
    const ids = [...this.pending];
    this.pending.clear();
    try {
      await stampApiKeysUsed(this.db, ids, this.interval);
    } catch (error) {
      for (const id of ids) this.recordedAt.delete(id);
      this.options.onError?.(error);
    }
  }
}
