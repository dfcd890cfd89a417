import { describe, expect, it } from "vitest";
import { MergeSchedule } from "./merge-schedule";

const options = { tailRows: 100, tailShare: 0.05, searchedWithinSeconds: 60, quietSeconds: 10 };

/** `unmerged` rows waiting in a table of 1,000 (whose 5 % is below `tailRows`). */
const rows = (unmerged: number) => ({ unmerged, total: 1_000 });

describe("MergeSchedule", () => {
  it("merges nothing when no row waits, searched or not", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(0), true, 0)).toBe(false);
    expect(schedule.due(1, rows(0), false, 60_000)).toBe(false);
  });

  it("merges every waiting row of a table that is being searched", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(1), true, 0)).toBe(true);
  });

  it("lets rows nobody searches wait while writes go on, until the tail reaches its bound", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(10), false, 0)).toBe(false);
    expect(schedule.due(1, rows(50), false, 9_000)).toBe(false);
    expect(schedule.due(1, rows(99), false, 18_000)).toBe(false);
    expect(schedule.due(1, rows(100), false, 19_000)).toBe(true);
  });

  it("merges once writes pause for quietSeconds, counted from the last change", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(10), false, 0)).toBe(false);
    expect(schedule.due(1, rows(20), false, 5_000)).toBe(false);
    expect(schedule.due(1, rows(20), false, 14_999)).toBe(false);
    expect(schedule.due(1, rows(20), false, 15_000)).toBe(true);
  });

  it("lets as much as tailShare of a large table wait", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, { unmerged: 4_999, total: 100_000 }, false, 0)).toBe(false);
    expect(schedule.due(1, { unmerged: 5_000, total: 100_000 }, false, 1_000)).toBe(true);
  });

  it("keeps each generation's pause apart", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(10), false, 0)).toBe(false);
    expect(schedule.due(2, rows(10), false, 0)).toBe(false);
    expect(schedule.due(2, rows(30), false, 10_000)).toBe(false);
    expect(schedule.due(1, rows(10), false, 10_000)).toBe(true);
  });

  it("holds a due merge off while a large document is written, for at most heldAtMostSeconds", () => {
    const schedule = new MergeSchedule({ ...options, heldAtMostSeconds: 30 });
    expect(schedule.due(1, rows(500), false, 0, true)).toBe(false);
    expect(schedule.due(1, rows(800), false, 29_999, true)).toBe(false);
    expect(schedule.due(1, rows(900), false, 30_000, true)).toBe(true);
    // Released: due at once; held again later, the wait starts over.
    expect(schedule.due(2, rows(500), true, 0, true)).toBe(false);
    expect(schedule.due(2, rows(500), true, 1_000, false)).toBe(true);
    expect(schedule.due(2, rows(600), true, 2_000, true)).toBe(false);
  });

  it("does not hold a merge that is not due", () => {
    const schedule = new MergeSchedule(options);
    expect(schedule.due(1, rows(10), false, 0, true)).toBe(false);
    expect(schedule.due(1, rows(10), false, 40_000, false)).toBe(true);
  });
});
