import { defineConfig } from "tsup";

// Bundles the workspace packages (TypeScript source) into one file; npm packages stay external.
export default defineConfig({
  entry: { svc: "src/svc.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  noExternal: [/^@svc\//],
  clean: true,
});
