import path from "node:path";
import { defineConfig, type Options } from "tsup";
import { APP_BUNDLE_OPTIONS } from "../../tsup.shared";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

const PACKAGES_DIR = path.resolve(import.meta.dirname, "../../packages") + path.sep;

/**
 * Lets esbuild leave out the workspace packages' modules that a command does not use, with the npm
 * packages they import: `@svc/core`'s index re-exports everything, so without this `svc keys list`
 * loaded LanceDB, Arrow, pino and the stemmers (a third of its start-up) for nothing. Only for the
 * CLI's bundle: the packages' modules do nothing when imported but define things, which holds for
 * what the CLI uses (its e2e tests run the built bundle).
 */
const workspacePackagesWithoutSideEffects: EsbuildPlugin = {
  name: "svc-workspace-packages-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /^(@svc\/|\.)/ }, async (args) => {
      if ((args.pluginData as { resolving?: boolean } | undefined)?.resolving) return undefined;
      const { kind, importer, resolveDir } = args;
      const resolved = await build.resolve(args.path, { kind, importer, resolveDir, pluginData: { resolving: true } });
      return resolved.errors.length === 0 && resolved.path.startsWith(PACKAGES_DIR) ? { ...resolved, sideEffects: false } : resolved;
    });
  },
};

export default defineConfig({ entry: { svc: "src/svc.ts" }, ...APP_BUNDLE_OPTIONS, esbuildPlugins: [workspacePackagesWithoutSideEffects] });
