import { SEARCH_LATENCY_WINDOW_SECONDS, type SearchLatency } from "@svc/schema";

/** The window advances in steps this long: it covers the last 290 to 300 s. */
const STEP_MS = 10_000;
const STEPS = (SEARCH_LATENCY_WINDOW_SECONDS * 1000) / STEP_MS;
/** Durations kept a step; past it each new one replaces a kept one at random (a uniform sample). */
const SAMPLES_PER_STEP = 1_000;

interface Step {
  /** Which STEP_MS slice of time (epoch ms ÷ STEP_MS). */
  slot: number;
  count: number;
  samples: number[];
}

/**
 * The durations of the searches one web process ran over the last SEARCH_LATENCY_WINDOW_SECONDS, and
 * their p50 and p95: what the health page shows and GET /api/metrics exports, read from this one
 * object so the two agree (docs/decisions.md, "Indexing health"). Counted exactly; the
 * percentiles are exact while a 10-s step holds at most SAMPLES_PER_STEP searches, and from a uniform
 * sample of each step (weighted by its count) beyond. Memory is bounded: 30 steps of 1,000 numbers.
 * prom-client's Summary is not used: its time window starts every bucket as one shared digest, which
 * weighs a window's first observations several times over (prom-client 15.1).
 */
export class SearchLatencyWindow {
  private readonly steps: Step[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  observe(seconds: number): void {
    const slot = Math.floor(this.clock() / STEP_MS);
    let step = this.steps.at(-1);
    if (step?.slot !== slot) {
      step = { slot, count: 0, samples: [] };
      this.steps.push(step);
      this.prune(slot);
    }
    step.count += 1;
    if (step.samples.length < SAMPLES_PER_STEP) step.samples.push(seconds);
    else {
      // Algorithm R: each of the step's searches stays in the sample with the same chance.
      const kept = Math.floor(Math.random() * step.count);
      if (kept < SAMPLES_PER_STEP) step.samples[kept] = seconds;
    }
  }

  read(): SearchLatency {
    this.prune(Math.floor(this.clock() / STEP_MS));
    const weighted = this.steps.flatMap((step) => step.samples.map((seconds) => ({ seconds, weight: step.count / step.samples.length })));
    const searches = this.steps.reduce((total, step) => total + step.count, 0);
    weighted.sort((a, b) => a.seconds - b.seconds);
    const percentile = (share: number): number | null => {
      if (weighted.length === 0) return null;
      // Nearest rank: the smallest duration at or below which `share` of the searches fall.
      const rank = share * searches;
      let seen = 0;
      for (const { seconds, weight } of weighted) {
        seen += weight;
        if (seen >= rank - 1e-9) return seconds * 1000;
      }
      return weighted.at(-1)!.seconds * 1000;
    };
    return { windowSeconds: SEARCH_LATENCY_WINDOW_SECONDS, searches, p50Ms: percentile(0.5), p95Ms: percentile(0.95) };
  }

  /** Drops the steps that left the window. */
  private prune(currentSlot: number): void {
    while (this.steps.length > 0 && this.steps[0]!.slot <= currentSlot - STEPS) this.steps.shift();
  }
}
