// Shared vitest settings: every package also writes a JSON report that .ci/run adds up into the
// plain "N passed, N failed" line.
import type { ViteUserConfig } from "vitest/config";

export const sharedTestConfig: NonNullable<ViteUserConfig["test"]> = {
  reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  testTimeout: 30_000,
  hookTimeout: 120_000,
};
