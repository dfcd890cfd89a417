import { setTimeout as delay } from "node:timers/promises";

export interface WaitForOptions {
  /** How long to keep probing before giving up; 30 s by default. */
  timeoutMs?: number;
  /** Count a probe that throws as "not yet", e.g. a fetch while the server is still starting. */
  retryOnError?: boolean;
  /** More for the timeout's message, e.g. what a child process has printed so far. */
  describe?: () => string;
}

const POLL_INTERVAL_MS = 50;

/**
 * Probes until it returns something other than undefined, and returns that: the tests' way to wait
 * for a condition (a worker's effect, a server coming up) with a deadline instead of a sleep.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 30_000, retryOnError = false, describe }: WaitForOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined;
    try {
      value = await probe();
    } catch (error) {
      if (!retryOnError) throw error;
    }
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describe ? `\n${describe()}` : ""}`);
    await delay(POLL_INTERVAL_MS);
  }
}
