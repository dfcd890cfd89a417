import { describe, expect, it } from "vitest";
import { PollRotation } from "./poll-rotation";

function rotationOf(count: number) {
  const woken: string[] = [];
  const rotation = new PollRotation((id) => woken.push(id));
  const pollers = Array.from({ length: count }, (_, index) => Object.assign(rotation.add(), { id: `p${index}` }));
  return { rotation, pollers, woken };
}

describe("PollRotation", () => {
  it("wakes one poller a tick, each in turn", () => {
    const { rotation, woken } = rotationOf(3);
    for (let tick = 0; tick < 7; tick += 1) rotation.tick();
    expect(woken).toEqual(["p0", "p1", "p2", "p0", "p1", "p2", "p0"]);
  });

  it("passes over a poller handling jobs, and takes it again once it is done", async () => {
    const { rotation, pollers, woken } = rotationOf(3);
    let finish!: () => void;
    const handling = rotation.handling(pollers[1]!, () => new Promise<void>((resolve) => (finish = resolve)));
    rotation.tick();
    rotation.tick();
    rotation.tick();
    expect(woken).toEqual(["p0", "p2", "p0"]);
    finish();
    await handling;
    rotation.tick();
    expect(woken.at(-1)).toBe("p1");
  });

  it("wakes nobody while every poller is busy or not started yet", async () => {
    const woken: string[] = [];
    const rotation = new PollRotation((id) => woken.push(id));
    rotation.add();
    const busy = Object.assign(rotation.add(), { id: "p1" });
    let finish!: () => void;
    const handling = rotation.handling(busy, () => new Promise<void>((resolve) => (finish = resolve)));
    rotation.tick();
    expect(woken).toEqual([]);
    finish();
    await handling;
    rotation.tick();
    expect(woken).toEqual(["p1"]);
  });

  it("marks a poller idle again when its handler fails", async () => {
    const { rotation, pollers, woken } = rotationOf(1);
    await expect(rotation.handling(pollers[0]!, () => Promise.reject(new Error("batch failed")))).rejects.toThrow("batch failed");
    rotation.tick();
    expect(woken).toEqual(["p0"]);
  });
});
