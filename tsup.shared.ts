// Shared tsup settings of the apps' bundles (apps/*/tsup.config.ts): one ESM file for Node 20 that
// holds the workspace packages (shipped as TypeScript source), with npm packages left external.
export const APP_BUNDLE_OPTIONS = {
  format: "esm" as const,
  platform: "node" as const,
  target: "node20",
  noExternal: [/^@svc\//],
  clean: true,
};
