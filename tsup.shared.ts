// Shared tsup settings of the apps' bundles (apps/*/tsup.config.ts): one ESM file for Node 20 that
// holds the workspace packages (shipped as TypeScript source), with npm packages left external.
export const APP_BUNDLE_OPTIONS = {
  format: "esm" as const,
  platform: "node" as const,
  target: "node20",
  noExternal: [/^@svc\//],
  clean: true,
};

// The published packages (@svc/schema, @svc/client): ESM and .d.ts in dist, so plain Node and
// TypeScript import them without a loader; their npm dependencies stay dependencies, not bundled.
export const LIBRARY_BUNDLE_OPTIONS = {
  entry: { index: "src/index.ts" },
  format: "esm" as const,
  platform: "neutral" as const,
  target: "es2022",
  dts: true,
  sourcemap: true,
  clean: true,
};
