import { defineConfig } from "tsup";

// Bundles the workspace packages (TypeScript source) into one file; npm packages stay external.
export default defineConfig({
  entry: { main: "src/main.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  noExternal: [/^@svc\//],
  clean: true,
});
