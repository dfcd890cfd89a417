import { describe, expect, it } from "vitest";
import { useSvcCommand } from "./testing/svc-command";

const { database, svc, failure } = await useSvcCommand("index");

describe("svc index", () => {
  it("shows the status, starts a rebuild, refuses a second one and cancels it", async () => {
    const idle = await svc("status");
    expect(idle.stdout).toContain('Search reads generation 1 (512-token chunks, "english").');
    expect(idle.stdout.trimEnd().split("\n").at(-1)).toBe("idle");

    const started = await svc("rebuild", "--chunk-tokens", "256", "--text-search-config", "simple");
    expect(started.stdout).toMatch(/Rebuilding generation \d+ \(256-token chunks, "simple"\): 0 of 0 documents done, 0 failed; waiting for the worker\./);
    expect(started.stdout.trimEnd().split("\n").at(-1)).toBe("building");
    const jobs = await database.db.$queryRaw<{ name: string }[]>`SELECT name FROM pgboss.job WHERE name = 'rebuild-index'`;
    expect(jobs).toHaveLength(1);

    const again = await failure("rebuild");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already running");

    const canceled = await svc("cancel");
    expect(canceled.stdout).toMatch(/Last rebuild: generation \d+, canceled at /);
    expect(canceled.stdout.trimEnd().split("\n").at(-1)).toBe("idle");
  });

  it("refuses bad input with a message and a non-zero exit", async () => {
    const tooSmall = await failure("rebuild", "--chunk-tokens", "5");
    expect(tooSmall.code).toBe(2);
    expect(tooSmall.stderr).toContain("greater than or equal to 128");
    expect((await failure("rebuild", "--text-search-config", "klingon")).code).toBe(1);
    expect((await failure("reindex")).code).toBe(2);
  });
});
