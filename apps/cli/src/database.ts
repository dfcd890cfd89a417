import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "@svc/db/embedded";
import type { CliEnv } from "./env";

export interface DatabaseHandle {
  databaseUrl: string;
  /** Whether this process started the embedded server (and so must stop it). */
  embedded: boolean;
  stop(): Promise<void>;
  /** For an embedded server this process started: settles with how it ended when its process exits. */
  exited?: Promise<string>;
}

export function embeddedDatabaseUrl(env: CliEnv): string {
  return `postgres://postgres:postgres@127.0.0.1:${env.SVC_EMBEDDED_PG_PORT}/svc`;
}

/**
 * The database to use: DATABASE_URL when set; otherwise the embedded PostgreSQL whose data lives in
 * SVC_DATA_DIR, reused when a running `svc start` already serves it.
 */
export async function openDatabase(env: CliEnv): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) return { databaseUrl: env.DATABASE_URL, embedded: false, stop: async () => {} };
  const databaseUrl = embeddedDatabaseUrl(env);
  if (await isReachable(databaseUrl)) return { databaseUrl, embedded: false, stop: async () => {} };
  const server = await startEmbeddedPostgres({
    dataDir: path.join(env.SVC_DATA_DIR, "postgres"),
    port: env.SVC_EMBEDDED_PG_PORT,
  });
  return { databaseUrl: server.databaseUrl.replace(/\/[^/]*$/, "/svc"), embedded: true, stop: () => server.stop(), exited: server.exited };
}

async function isReachable(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl.replace(/\/[^/]*$/, "/postgres"), connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
