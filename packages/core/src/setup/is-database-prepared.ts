import { Prisma, selectSql, type Db } from "@svc/db";
import { listMigrationNames } from "@svc/db/migrate";
import { DEAD_LETTER_QUEUE, JOB_CATALOG } from "../jobs/catalog";

/**
 * Whether prepareDatabase() would find nothing to do: every migration this build ships is applied
 * and every queue of the job catalog exists. Two small reads, where preparing costs seconds (the
 * migrations run the Prisma CLI in a child process), so short-lived commands check first. Any
 * failure (no database, no tables yet) means "not prepared".
 */
export async function isDatabasePrepared({ db }: { db: Db }): Promise<boolean> {
  try {
    const [migrations, queues] = await Promise.all([
      selectSql<{ migration_name: string }>(
        db,
        Prisma.sql`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      ),
      selectSql<{ name: string }>(db, Prisma.sql`SELECT name FROM pgboss.queue`),
    ]);
    const applied = new Set(migrations.map((row) => row.migration_name));
    const installed = new Set(queues.map((row) => row.name));
    return (
      listMigrationNames().every((name) => applied.has(name)) &&
      [DEAD_LETTER_QUEUE, ...JOB_CATALOG.map((job) => job.name)].every((name) => installed.has(name))
    );
  } catch {
    return false;
  }
}
