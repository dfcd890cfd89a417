import { applyMigrations, ensureDatabase } from "@svc/db/migrate";
import { installJobQueues } from "../jobs/job-queue";

/** Makes a database ready for svc: created if missing, migrated, pg-boss and its queues installed. */
export async function prepareDatabase(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  await installJobQueues(databaseUrl);
}
