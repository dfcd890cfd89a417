import { describe, expect, it } from "vitest";
import { WriteGate } from "./write-gate";

/** A promise and the function that settles it, for holding a step of a test in place. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

describe("WriteGate", () => {
  it("starts a compaction only once the writes in flight are done, and holds new writes until it ends", async () => {
    const gate = new WriteGate();
    const events: string[] = [];
    const firstWrite = deferred();
    const compaction = deferred();
    const writing = gate.write(async () => {
      events.push("write 1 starts");
      await firstWrite.promise;
      events.push("write 1 ends");
    });
    const compacting = gate.alone(async () => {
      events.push("compaction starts");
      await compaction.promise;
      events.push("compaction ends");
    });
    const later = gate.write(() => Promise.resolve(events.push("write 2")));
    await Promise.resolve();
    expect(events).toEqual(["write 1 starts"]);
    firstWrite.resolve();
    await writing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["write 1 starts", "write 1 ends", "compaction starts"]);
    compaction.resolve();
    await Promise.all([compacting, later]);
    expect(events).toEqual(["write 1 starts", "write 1 ends", "compaction starts", "compaction ends", "write 2"]);
  });

  it("runs compactions one at a time, and opens again after one fails", async () => {
    const gate = new WriteGate();
    const events: string[] = [];
    const failing = gate.alone(async () => {
      events.push("first");
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error("commit conflict");
    });
    const second = gate.alone(() => Promise.resolve(events.push("second")));
    await expect(failing).rejects.toThrow("commit conflict");
    await second;
    expect(await gate.write(() => Promise.resolve("written"))).toBe("written");
    expect(events).toEqual(["first", "second"]);
  });
});
