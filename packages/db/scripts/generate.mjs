// `prisma generate` (Prisma 7) on a machine with no Prisma env vars set. Generation needs no schema
// engine, but the CLI insists on locating one and otherwise tries to download it, which these
// machines cannot: any existing file satisfies the check.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const prismaCli = createRequire(path.join(packageDir, "package.json")).resolve("prisma/build/index.js");

const result = spawnSync(process.execPath, [prismaCli, "generate", ...process.argv.slice(2)], {
  cwd: packageDir,
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);
