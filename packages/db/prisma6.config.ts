// Prisma 6 configuration, for the 6.x CLI that runs migrations (see prisma/README.md). Use it through
// scripts/prisma6.mjs (the migrate:* scripts), never directly: that script derives the schema copy
// named here and builds the driver adapter. It builds the adapter itself, rather than this file,
// because the CLI loads this file through jiti without its module cache, so pg imported here would
// be another instance than the one the script patches.
import type { PrismaConfig } from "prisma6/config";

type AdapterFactory = Awaited<ReturnType<Extract<PrismaConfig, { engine: "js" }>["adapter"]>>;

const ADAPTER_SLOT = Symbol.for("svc.db.prisma6AdapterFactory");

export default {
  experimental: { adapter: true },
  engine: "js",
  schema: "../../prisma/.schema6.prisma",
  migrations: { path: "../../prisma/migrations" },
  adapter: async () => {
    const factory = (globalThis as Record<symbol, AdapterFactory | undefined>)[ADAPTER_SLOT];
    if (!factory) throw new Error("run the Prisma 6 CLI through packages/db/scripts/prisma6.mjs (pnpm --filter @svc/db migrate:*)");
    return factory;
  },
} satisfies PrismaConfig;
