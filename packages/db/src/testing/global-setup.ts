// vitest globalSetup: once per test run, a migrated template database on DATABASE_URL's server, or
// on a throwaway embedded server when DATABASE_URL is unset. Test files copy it with
// createTestDatabase(). In vitest.config.ts: `globalSetup: ["<path to this file>"]`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../embedded";
import { applyMigrations } from "../migrate";
import { withDatabase, withServerClient } from "../postgres";
import { TEMPLATE_URL_ENV, templateName, testDatabasePrefix } from "./names";

interface Server {
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * A global setup whose template also gets `prepare` (for example the job queues of packages that
 * build on this one) after the migrations.
 */
export function createTestDatabaseSetup(prepare?: (templateUrl: string) => Promise<void>) {
  return () => setupTestDatabases(prepare);
}

export default createTestDatabaseSetup();

/** Returns the teardown, which drops the run's databases and stops the embedded server. */
async function setupTestDatabases(prepare?: (templateUrl: string) => Promise<void>): Promise<() => Promise<void>> {
  const server: Server = process.env.DATABASE_URL
    ? { databaseUrl: process.env.DATABASE_URL, stop: async () => {} }
    : await startThrowawayServer();
  const template = templateName(`${process.pid}_${randomBytes(4).toString("hex")}`);
  const templateUrl = withDatabase(server.databaseUrl, template);
  const teardown = async () => {
    try {
      await dropRunDatabases(server.databaseUrl, template);
    } finally {
      await server.stop();
    }
  };

  try {
    await withServerClient(server.databaseUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(template)}`));
    await applyMigrations(templateUrl);
    await prepare?.(templateUrl);
    // CREATE DATABASE ... TEMPLATE fails while anyone is connected to the template, so nobody may.
    await withServerClient(server.databaseUrl, (client) =>
      client.query(`ALTER DATABASE ${client.escapeIdentifier(template)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`),
    );
  } catch (error) {
    await teardown();
    throw error;
  }
  process.env[TEMPLATE_URL_ENV] = templateUrl;
  return teardown;
}

async function startThrowawayServer(): Promise<Server> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-test-pg-"));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const server = await startEmbeddedPostgres({
      dataDir,
      // Durability is worthless for a cluster deleted after the run; skipping it makes CREATE
      // DATABASE and commits cheap. Parallel test files each hold a few pools.
      postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    });
    return {
      databaseUrl: server.databaseUrl,
      stop: async () => {
        await server.stop();
        await removeDataDir();
      },
    };
  } catch (error) {
    await removeDataDir();
    throw error;
  }
}

/** Drops the template and any test database of this run that a test file did not drop. */
async function dropRunDatabases(serverUrl: string, template: string): Promise<void> {
  await withServerClient(serverUrl, async (client) => {
    const leftovers = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2",
      [testDatabasePrefix(template), template],
    );
    for (const { datname } of leftovers.rows) {
      const name = client.escapeIdentifier(datname);
      // Postgres refuses to drop a database still marked as a template.
      if (datname === template) await client.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE false`);
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
}
