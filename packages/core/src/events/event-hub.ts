import type { Db } from "@svc/db";
import { AppError } from "../errors/app-error";
import { isAfterPosition, readFinalEvents, readLastFinalEventPosition, type EventPosition, type StoredEvent } from "./event-rows";

/** How often the hub looks for new final events while a stream is open (docs/decisions.md "Events"). */
export const EVENT_POLL_MS = 250;
/** Events read per statement, by the hub and by a stream catching up. */
export const EVENT_PAGE_SIZE = 500;
/** Recent events the hub keeps for its streams; a stream further behind reads the outbox itself. */
const RING_SIZE = 10_000;

export interface EventHubOptions {
  db: Db;
  /** Open streams this process serves at most; past it a stream is refused with 429 (SVC_MAX_EVENT_STREAMS). */
  maxStreams: number;
  pollMs?: number;
}

/** A stream's hold on the hub: where the stream starts when it gives no position, and its release. */
export interface EventHubLease {
  tail: EventPosition;
  release(): void;
}

/**
 * The one reader of the outbox per web process (docs/decisions.md "Events"): while at least one
 * stream is open it reads the new final events every EVENT_POLL_MS with one statement, keeps the last
 * RING_SIZE of them, and wakes the streams, which take what they may see from it. The cost of the
 * live stream is one query per interval per process, whatever the number of streams; a stream holds
 * no database connection while it waits, only its place (a position) in the ring.
 */
export class EventHub {
  private readonly db: Db;
  private readonly maxStreams: number;
  private readonly pollMs: number;
  private streams = 0;
  private ring: StoredEvent[] = [];
  /** Every final event after `floor` up to `cursor` is in the ring. */
  private floor: EventPosition | null = null;
  private cursor: EventPosition | null = null;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private waiters = new Set<() => void>();
  /** Counts the hub's starts: a poll of an earlier run (stopped since) does nothing. */
  private run = 0;

  constructor({ db, maxStreams, pollMs = EVENT_POLL_MS }: EventHubOptions) {
    this.db = db;
    this.maxStreams = maxStreams;
    this.pollMs = pollMs;
  }

  private closedForShutdown = false;

  /** Whether the process is shutting down: streams end, new ones are refused. */
  get closed(): boolean {
    return this.closedForShutdown;
  }

  /** Ends every stream (each returns at its next step) and refuses new ones: the process is stopping. */
  close(): void {
    this.closedForShutdown = true;
    for (const wake of [...this.waiters]) wake();
  }

  /** Open streams now. */
  get openStreams(): number {
    return this.streams;
  }

  /** Takes a stream's place, or refuses it (429) when maxStreams are open; starts reading when it is the first. */
  async lease(): Promise<EventHubLease> {
    if (this.closedForShutdown) throw new AppError("UNAVAILABLE", "The server is shutting down; try again later");
    if (this.streams >= this.maxStreams) {
      throw new AppError("TOO_MANY_STREAMS", `This server already serves ${this.maxStreams} event streams; try again later`);
    }
    this.streams += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.streams -= 1;
      if (this.streams === 0) this.stop();
    };
    try {
      await this.start();
    } catch (error) {
      release();
      throw error;
    }
    return { tail: this.cursor ?? { txId: 0n, id: 0n }, release };
  }

  /**
   * The ring's events after `position`, at most `limit`; null when the ring no longer reaches back to
   * it (the stream reads the outbox itself until it does).
   */
  eventsAfter(position: EventPosition, limit: number): StoredEvent[] | null {
    if (this.floor === null || isAfterPosition(this.floor, position)) return null;
    let low = 0;
    let high = this.ring.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (isAfterPosition((this.ring[middle] as StoredEvent).position, position)) high = middle;
      else low = middle + 1;
    }
    return this.ring.slice(low, low + limit);
  }

  /** Resolves when the hub read new events, after `timeoutMs`, or when `signal` aborts. */
  async waitForEvents(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal.addEventListener("abort", done);
      this.waiters.add(done);
    });
  }

  private start(): Promise<void> {
    this.starting ??= (async () => {
      const run = this.run;
      const tail = await readLastFinalEventPosition(this.db);
      // Every stream left while the tail was read (stop() counted a run): nothing to serve.
      if (this.run !== run) return;
      this.run += 1;
      this.floor = tail;
      this.cursor = tail;
      this.ring = [];
      this.schedule(this.pollMs);
    })().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  private stop(): void {
    this.run += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.starting = null;
    this.floor = null;
    this.cursor = null;
    this.ring = [];
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => void this.poll(), delayMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const run = this.run;
    const cursor = this.cursor;
    if (cursor === null) return;
    let full = false;
    try {
      const events = await readFinalEvents(this.db, cursor, EVENT_PAGE_SIZE);
      // Stopped (no stream left) or restarted while the statement ran: this reading is stale.
      if (this.run !== run) return;
      if (events.length > 0) {
        this.ring.push(...events);
        this.cursor = (events.at(-1) as StoredEvent).position;
        if (this.ring.length > RING_SIZE) {
          const dropped = this.ring.splice(0, this.ring.length - RING_SIZE);
          this.floor = (dropped.at(-1) as StoredEvent).position;
        }
        for (const wake of [...this.waiters]) wake();
        full = events.length === EVENT_PAGE_SIZE;
      }
    } catch {
      // The database is away or slow: the streams wait (their heartbeats go on) and the next tick tries again.
      if (this.run !== run) return;
    }
    this.schedule(full ? 0 : this.pollMs);
  }
}
