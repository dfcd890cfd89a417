import { describe, expect, it } from "vitest";
import { MergeSchedule } from "./merge-schedule";

const options = { tailRows: 100, searchedWithinSeconds: 60, quietSeconds: 10 };

describe("MergeSchedule", () => {
  it("merges nothing when no row waits, searched or not", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, 0, true, 0)).toBe(false);
    expect(schedule.due(1, 0, false, 60_000)).toBe(false);
  });

  it("merges every waiting row of a table that is being searched", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, 1, true, 0)).toBe(true);
  });

  it("lets rows nobody searches wait while writes go on, until the tail reaches its bound", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, 10, false, 0)).toBe(false);
    expect(schedule.due(1, 50, false, 9_000)).toBe(false);
    expect(schedule.due(1, 99, false, 18_000)).toBe(false);
    expect(schedule.due(1, 100, false, 19_000)).toBe(true);
  });

  it("merges once writes pause for quietSeconds, counted from the last change", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, 10, false, 0)).toBe(false);
    expect(schedule.due(1, 20, false, 5_000)).toBe(false);
    expect(schedule.due(1, 20, false, 14_999)).toBe(false);
    expect(schedule.due(1, 20, false, 15_000)).toBe(true);
  });

  it("keeps each generation's pause apart", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, 10, false, 0)).toBe(false);
    expect(schedule.due(2, 10, false, 0)).toBe(false);
    expect(schedule.due(2, 30, false, 10_000)).toBe(false);
    expect(schedule.due(1, 10, false, 10_000)).toBe(true);
  });
});
