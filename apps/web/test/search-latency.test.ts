// The search-latency window the health page and GET /api/metrics read (server/observability/search-latency.ts).
import { describe, expect, it } from "vitest";
import { SearchLatencyWindow } from "../server/observability/search-latency";

function windowAt(start: number) {
  const clock = { now: start };
  return { clock, window: new SearchLatencyWindow(() => clock.now) };
}

describe("SearchLatencyWindow", () => {
  it("reads nothing before the first search", () => {
    expect(new SearchLatencyWindow().read()).toEqual({ windowSeconds: 300, searches: 0, p50Ms: null, p95Ms: null });
  });

  it("gives the nearest-rank p50 and p95 of the searches, exactly", () => {
    const { window } = windowAt(1_000_000);
    // 1 ms … 100 ms, out of order.
    for (let ms = 100; ms >= 1; ms -= 1) window.observe(ms / 1000);
    expect(window.read()).toEqual({ windowSeconds: 300, searches: 100, p50Ms: 50, p95Ms: 95 });
  });

  it("forgets searches once they are 300 s old", () => {
    const { clock, window } = windowAt(0);
    window.observe(0.5);
    clock.now += 200_000;
    window.observe(0.01);
    expect(window.read()).toMatchObject({ searches: 2, p95Ms: 500 });
    clock.now = 300_000;
    expect(window.read()).toEqual({ windowSeconds: 300, searches: 1, p50Ms: 10, p95Ms: 10 });
    clock.now = 500_000;
    expect(window.read()).toEqual({ windowSeconds: 300, searches: 0, p50Ms: null, p95Ms: null });
  });

  it("counts every search past the sample's size, and weighs each 10-s step by its count", () => {
    const { clock, window } = windowAt(0);
    // A busy step: 20,000 searches of 100 ms, then a quieter one: 2,000 of 1 ms; 1,000 kept of each.
    for (let index = 0; index < 20_000; index += 1) window.observe(0.1);
    clock.now += 10_000;
    for (let index = 0; index < 2_000; index += 1) window.observe(0.001);
    const read = window.read();
    expect(read.searches).toBe(22_000);
    // The fast searches are 9 % of all, not half of the kept samples: the median is a slow one.
    expect(read.p50Ms).toBe(100);
    expect(read.p95Ms).toBe(100);
    clock.now += 10_000;
    for (let index = 0; index < 30_000; index += 1) window.observe(0.001);
    // Now 32,000 of 52,000 are fast (62 %).
    expect(window.read()).toMatchObject({ searches: 52_000, p50Ms: 1, p95Ms: 100 });
  });
});
