#!/usr/bin/env node
import module from "node:module";

// Node's compile cache (in the OS temp folder, or NODE_COMPILE_CACHE) keeps V8's compiled code of the
// CLI and of what it loads (Prisma's client, pg, zod…) between runs: compiling them took about a third
// of a quick command's time. Enabled before anything else is imported, so it covers all of it.
module.enableCompileCache?.();
await import("./program");
