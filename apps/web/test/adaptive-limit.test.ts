import { describe, expect, it } from "vitest";
import { AdaptiveLimit } from "../server/rest/adaptive-limit";

/** One window in which `latenciesMs` finished, the limit binding or not. */
function windowOf(limit: AdaptiveLimit, latenciesMs: number[], reached: boolean): number {
  for (const latency of latenciesMs) limit.record(latency);
  if (reached) limit.noteReached();
  return limit.adjust();
}

describe("AdaptiveLimit", () => {
  it("starts at its ceiling and shrinks by a quarter per slow window, down to its floor", () => {
    const limit = new AdaptiveLimit(64, 4, 250);
    expect(limit.value).toBe(64);
    expect(windowOf(limit, [300, 400, 500], false)).toBe(48);
    expect(windowOf(limit, [300], true)).toBe(36);
    for (let index = 0; index < 20; index += 1) windowOf(limit, [1_000], true);
    expect(limit.value).toBe(4);
  });

  it("judges a window by its 90th percentile: a few slow requests among fast ones do not shrink it", () => {
    const limit = new AdaptiveLimit(64, 4, 250);
    expect(windowOf(limit, [...Array.from({ length: 19 }, () => 20), 5_000], false)).toBe(64);
    expect(windowOf(limit, [...Array.from({ length: 8 }, () => 20), 5_000, 5_000], false)).toBe(48);
  });

  it("grows by a tenth (at least one) only while fast and binding, up to its ceiling", () => {
    const limit = new AdaptiveLimit(64, 4, 250);
    for (let index = 0; index < 20; index += 1) windowOf(limit, [1_000], true);
    expect(windowOf(limit, [50], false)).toBe(4);
    expect(windowOf(limit, [50], true)).toBe(5);
    for (let index = 0; index < 40; index += 1) windowOf(limit, [50], true);
    expect(limit.value).toBe(64);
  });

  it("shrinks when nothing finished in a window while the limit was binding (every request stuck)", () => {
    const limit = new AdaptiveLimit(64, 4, 250);
    expect(windowOf(limit, [], false)).toBe(64);
    expect(windowOf(limit, [], true)).toBe(48);
  });

  it("stays at its ceiling with a target of 0", () => {
    const limit = new AdaptiveLimit(64, 4, 0);
    expect(windowOf(limit, [10_000], true)).toBe(64);
  });
});
