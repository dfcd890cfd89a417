import { defineConfig } from "tsup";

// Bundles the production server with the route handlers and workspace packages (TypeScript source);
// npm packages, Next.js included, stay external.
export default defineConfig({
  entry: { server: "server.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  noExternal: [/^@svc\//],
  clean: true,
});
