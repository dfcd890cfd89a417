/** One of a queue's pollers in a PollRotation: pg-boss's worker id once it is known, and whether it is handling jobs. */
export interface RotatingPoller {
  id: string | null;
  busy: boolean;
}

/**
 * Takes a queue's pollers in turn: each `tick` wakes the next idle one (pg-boss's notifyWorker), which
 * fetches at once. Ticking every interval ÷ N gives one fetch every interval ÷ N whatever each poller's
 * batches took, and whatever stalled the event loop meanwhile: pollers left to their own timers keep
 * the phase they last had, so one stall that makes their timers fire together leaves them fetching in
 * step for good, and a job waits a whole interval for the next fetch (bench/RESULTS.md, session 17).
 * A tick that finds every poller busy wakes none: each fetches again when its batch ends, on its own.
 */
export class PollRotation {
  private readonly pollers: RotatingPoller[] = [];
  private turn = 0;

  constructor(private readonly wake: (pollerId: string) => void) {}

  /** A new poller; set its `id` once pg-boss has started it. */
  add(): RotatingPoller {
    const poller: RotatingPoller = { id: null, busy: false };
    this.pollers.push(poller);
    return poller;
  }

  /** Runs `handle` with `poller` marked busy, so no tick wakes it meanwhile. */
  async handling<T>(poller: RotatingPoller, handle: () => Promise<T>): Promise<T> {
    poller.busy = true;
    try {
      return await handle();
    } finally {
      poller.busy = false;
    }
  }

  /** Wakes the next idle poller after the one woken last, if any is idle. */
  tick(): void {
    for (let step = 0; step < this.pollers.length; step += 1) {
      const index = (this.turn + step) % this.pollers.length;
      const poller = this.pollers[index]!;
      if (poller.id === null || poller.busy) continue;
      this.turn = index + 1;
      this.wake(poller.id);
      return;
    }
  }
}
