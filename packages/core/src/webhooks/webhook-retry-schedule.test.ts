import { describe, expect, it } from "vitest";
import { WEBHOOK_RETRY_WINDOW_MS, webhookRetryDelayMs } from "./webhook-retry-schedule";

describe("webhook retry schedule", () => {
  it("doubles from 5 s to an hour, and fits about 33 tries in the 24 h window", () => {
    expect([1, 2, 3, 10, 11, 12, 40].map(webhookRetryDelayMs)).toEqual([5_000, 10_000, 20_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000]);
    let elapsed = 0;
    let tries = 1;
    while (elapsed + webhookRetryDelayMs(tries) <= WEBHOOK_RETRY_WINDOW_MS) {
      elapsed += webhookRetryDelayMs(tries);
      tries += 1;
    }
    expect(tries).toBe(33);
  });
});
