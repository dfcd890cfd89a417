// Shared vitest settings: every package also writes a JSON report that .ci/run adds up into the
// plain "N passed, N failed" line.
import type { ViteUserConfig } from "vitest/config";

export const sharedTestConfig: NonNullable<ViteUserConfig["test"]> = {
  reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  testTimeout: 30_000,
  hookTimeout: 120_000,
  // Workers that tests start run at the tests' own CPU priority, not the default niceness of 10: on a
  // machine saturated by parallel test files they would wait behind them. A test of the niceness sets
  // its own.
  env: { SVC_WORKER_NICE: "0" },
};
