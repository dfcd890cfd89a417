import { describe, expect, it } from "vitest";
import { EndpointBreakers, FAILURES_TO_OPEN, PROBE_FIRST_DELAY_MS, PROBE_MAX_DELAY_MS } from "./endpoint-breakers";

const SHARE = 32;

function failTimes(breakers: EndpointBreakers, endpointId: number, times: number, now: number): void {
  for (let index = 0; index < times; index += 1) breakers.noteTry(endpointId, false, now);
}

describe("an endpoint's breaker", () => {
  it("gives an endpoint its whole share less what is in flight until it fails FAILURES_TO_OPEN times in a row", () => {
    const breakers = new EndpointBreakers();
    failTimes(breakers, 1, FAILURES_TO_OPEN - 1, 0);
    breakers.noteTry(1, true, 0);
    failTimes(breakers, 1, FAILURES_TO_OPEN - 1, 0);
    expect(breakers.room(1, { inFlight: 3, share: SHARE, now: 0 })).toBe(SHARE - 3);
    expect(breakers.room(2, { inFlight: 0, share: SHARE, now: 0 })).toBe(SHARE);
  });

  it("then takes one probe at a time, waiting as long as the endpoint has failed so far, a minute at most", () => {
    const breakers = new EndpointBreakers();
    failTimes(breakers, 1, FAILURES_TO_OPEN, 1_000);
    expect(breakers.room(1, { inFlight: 0, share: SHARE, now: 1_000 })).toBe(0);
    expect(breakers.room(1, { inFlight: 0, share: SHARE, now: 1_000 + PROBE_FIRST_DELAY_MS })).toBe(1);
    expect(breakers.room(1, { inFlight: 1, share: SHARE, now: 1_000 + PROBE_FIRST_DELAY_MS })).toBe(0);

    const probes: number[] = [];
    let now = 1_000 + PROBE_FIRST_DELAY_MS;
    while (now < 1_000 + 600_000) {
      probes.push(now);
      breakers.noteTry(1, false, now);
      while (breakers.room(1, { inFlight: 0, share: SHARE, now }) === 0) now += 100;
    }
    const waits = probes.slice(1).map((at, index) => at - (probes[index] ?? 0));
    expect(waits.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(Math.max(...waits)).toBe(PROBE_MAX_DELAY_MS);
    // Ten minutes of outage: about 15 tries, not one per delivery and retry.
    expect(probes.length).toBeLessThan(20);
  });

  it("closes on a delivered try: the whole share again", () => {
    const breakers = new EndpointBreakers();
    failTimes(breakers, 1, FAILURES_TO_OPEN * 3, 0);
    breakers.noteTry(1, true, 70_000);
    expect(breakers.room(1, { inFlight: 0, share: SHARE, now: 70_000 })).toBe(SHARE);
    expect(breakers.failingEndpoints()).toEqual([]);
  });
});
