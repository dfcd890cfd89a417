import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../vitest.shared";

export default defineConfig({
  // Each case runs the built CLI several times as child processes (a second or more each on a busy
  // 2-core machine), so a case gets more time than the shared default.
  test: { ...sharedTestConfig, testTimeout: 90_000, globalSetup: ["../../packages/core/src/testing/global-setup.ts"] },
});
