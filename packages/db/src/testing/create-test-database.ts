import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type pg from "pg";
import { createDb, type Db } from "../client";
import { databaseName, isPgError, withDatabase, withServerClient } from "../postgres";
import { TEMPLATE_URL_ENV, testDatabasePrefix } from "./names";

export interface TestDatabase {
  databaseUrl: string;
  /** A client on the database; drop() disconnects it. */
  db: Db;
  /** Disconnects `db` and drops the database, closing any other connection to it. */
  drop(): Promise<void>;
}

/** How long to keep retrying a copy that Postgres refuses because someone is on the template. */
const COPY_RETRY_DEADLINE_MS = 15_000;

/**
 * A fresh database with every migration applied (a copy of the run's template, made by the global
 * setup in ./global-setup.ts), for one test file: call it in beforeAll and drop() in afterAll.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const templateUrl = process.env[TEMPLATE_URL_ENV];
  if (!templateUrl) {
    throw new Error(
      `${TEMPLATE_URL_ENV} is not set: add the global setup of @svc/db/testing (packages/db/src/testing/global-setup.ts) to globalSetup in vitest.config.ts`,
    );
  }
  const template = databaseName(templateUrl);
  const name = `${testDatabasePrefix(template)}${randomBytes(6).toString("hex")}`;
  await withServerClient(templateUrl, (client) => copyDatabase(client, template, name));

  const databaseUrl = withDatabase(templateUrl, name);
  const db = createDb({ databaseUrl, poolSize: 5 });
  let dropped = false;
  return {
    databaseUrl,
    db,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await db.$disconnect();
      await withServerClient(templateUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`));
    },
  };
}

/**
 * CREATE DATABASE ... TEMPLATE fails with object_in_use (55006) while any session is connected to
 * the template. The global setup bars connections to it, but Postgres' own workers may still drop in
 * for a moment, so that error is retried until a deadline.
 */
async function copyDatabase(client: pg.Client, template: string, name: string): Promise<void> {
  const deadline = Date.now() + COPY_RETRY_DEADLINE_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(template)}`);
      return;
    } catch (error) {
      if (!isPgError(error, "55006") || Date.now() > deadline) throw error;
      await delay(Math.min(20 * attempt, 200));
    }
  }
}
