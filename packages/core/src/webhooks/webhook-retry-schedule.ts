/**
 * When a failed delivery is tried again (docs/decisions.md "Webhooks"): 5 s after the first try, then
 * twice as long after each (10 s, 20 s, … 42 min 40 s), then hourly, until 24 h after the event was
 * fanned out; a try that fails past that is the last, and the delivery is dead. About 33 tries in all.
 */
export const WEBHOOK_RETRY_FIRST_DELAY_MS = 5_000;
export const WEBHOOK_RETRY_MAX_DELAY_MS = 3_600_000;
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3_600_000;

/** The wait after the `attempts`-th failed try (1 for the first). */
export function webhookRetryDelayMs(attempts: number): number {
  return Math.min(WEBHOOK_RETRY_FIRST_DELAY_MS * 2 ** Math.max(0, attempts - 1), WEBHOOK_RETRY_MAX_DELAY_MS);
}
