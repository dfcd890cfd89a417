import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../vitest.shared";

export default defineConfig({
  test: { ...sharedTestConfig, globalSetup: ["../../packages/core/src/testing/global-setup.ts"] },
});
