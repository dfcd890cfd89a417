import { describe, expect, it } from "vitest";
import { useSvcCommand } from "./testing/svc-command";

const { database, svc, failure } = await useSvcCommand("index");

describe("svc index", () => {
  it("shows the status, starts a rebuild, refuses a second one and cancels it", async () => {
    const idle = await svc("status");
    const [header, current] = idle.stdout.split("\n");
    expect(header?.split(/\s{2,}/)).toEqual([
      "GENERATION",
      "ROLE",
      "STATUS",
      "CHUNK TOKENS",
      "TEXT SEARCH",
      "DOCUMENTS",
      "CHUNKS",
      "SIZE",
      "REBUILT",
      "FAILED",
      "STARTED",
      "COMPLETED",
    ]);
    expect(current?.split(/\s{2,}/)).toEqual(["1", "search reads", "current", "512", "english", "-", "-", "-", "-", "-", "-", "-"]);
    expect(idle.stdout.trimEnd().split("\n").at(-1)).toBe("Index: idle");
    expect(JSON.parse((await svc("status", "--json")).stdout)).toMatchObject({
      status: "idle",
      current: { generation_id: 1, chunk_token_limit: 512, text_search_config: "english" },
      rebuild: null,
    });

    const started = await svc("rebuild", "--chunk-tokens", "256", "--text-search-config", "simple");
    expect(started.stdout).toMatch(/^\d+ +rebuild +building +256 +simple +.+? +0\/0 +0 +waiting for the worker +-$/m);
    expect(started.stdout.trimEnd().split("\n").at(-1)).toBe("Index: building");
    const jobs = await database.db.$queryRaw<{ name: string }[]>`SELECT name FROM pgboss.job WHERE name = 'rebuild-index'`;
    expect(jobs).toHaveLength(1);

    const again = await failure("rebuild");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already running");

    const canceled = JSON.parse((await svc("cancel", "--json")).stdout) as { status: string; last_rebuild: { status: string } };
    expect(canceled).toMatchObject({ status: "idle", rebuild: null, last_rebuild: { status: "canceled" } });
  });

  it("refuses bad input with a message and a non-zero exit", async () => {
    const tooSmall = await failure("rebuild", "--chunk-tokens", "5");
    expect(tooSmall.code).toBe(2);
    expect(tooSmall.stderr).toContain("greater than or equal to 128");
    expect((await failure("rebuild", "--text-search-config", "klingon")).code).toBe(1);
    expect((await failure("reindex")).code).toBe(2);
  });
});
