/**
 * An in-flight limit that follows measured latency, the way TCP's congestion window and Netflix's
 * concurrency-limits do (additive increase, multiplicative decrease). A fixed limit cannot be right
 * for every machine: on two busy cores 128 ingestions in flight wait ~0.8 s each for the database
 * pool and the CPU (bench/RESULTS.md), and past the point where the database is busy, more
 * concurrency only lengthens everyone's wait. So each window: when the admitted requests that
 * finished in it were slower than the target (90th percentile), or none finished although the limit
 * was binding, the limit shrinks by a quarter; when they were fast and the limit was binding, it
 * grows by a tenth. It stays between `floor` and `ceiling`.
 */
export class AdaptiveLimit {
  #limit: number;
  #latenciesMs: number[] = [];
  #reached = false;

  /** `targetMs` 0 keeps the limit at `ceiling`. */
  constructor(
    readonly ceiling: number,
    readonly floor: number,
    readonly targetMs: number,
  ) {
    this.#limit = ceiling;
  }

  get value(): number {
    return this.#limit;
  }

  /** A request met the limit (it was refused, or took the last slot). */
  noteReached(): void {
    this.#reached = true;
  }

  /** An admitted request finished after `latencyMs`. */
  record(latencyMs: number): void {
    this.#latenciesMs.push(latencyMs);
  }

  /** Ends a window: adjusts the limit from what it saw, and forgets it. */
  adjust(): number {
    if (this.targetMs > 0) {
      const p90 = percentile90(this.#latenciesMs);
      const slow = p90 === undefined ? this.#reached : p90 > this.targetMs;
      if (slow) this.#limit = Math.max(this.floor, Math.floor(this.#limit * 0.75));
      else if (this.#reached) this.#limit = Math.min(this.ceiling, this.#limit + Math.max(1, Math.floor(this.#limit / 10)));
    }
    this.#latenciesMs = [];
    this.#reached = false;
    return this.#limit;
  }
}

function percentile90(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.9) - 1];
}
