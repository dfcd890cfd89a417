import { describe, expect, it, vi } from "vitest";
import { ensureLanceCpuThreads, MIN_LANCE_CPU_THREADS } from "./lance-threads";

describe("LANCE_CPU_THREADS", () => {
  it("raises an absent or smaller value to the minimum and keeps a larger one", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(ensureLanceCpuThreads(env)).toBe(MIN_LANCE_CPU_THREADS);
    expect(env.LANCE_CPU_THREADS).toBe("4");
    for (const value of ["1", "2", "3", "0", "-8", "many"]) {
      const small: NodeJS.ProcessEnv = { LANCE_CPU_THREADS: value };
      ensureLanceCpuThreads(small);
      expect(small.LANCE_CPU_THREADS).toBe("4");
    }
    const large: NodeJS.ProcessEnv = { LANCE_CPU_THREADS: "8" };
    expect(ensureLanceCpuThreads(large)).toBe(8);
    expect(large.LANCE_CPU_THREADS).toBe("8");
  });

  it("is set for the process by importing the package, before any index is opened", async () => {
    process.env.LANCE_CPU_THREADS = "2";
    vi.resetModules();
    const searchIndex = await import("./index");
    expect(Number(process.env.LANCE_CPU_THREADS)).toBeGreaterThanOrEqual(MIN_LANCE_CPU_THREADS);
    expect(searchIndex.MIN_LANCE_CPU_THREADS).toBe(4);
  });
});
