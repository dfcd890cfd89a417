import { Prisma, isDatabaseUnavailable, selectSql, type Db } from "@svc/db";
import { WORKER_HEARTBEAT_MAX_AGE_SECONDS, type ServiceCheck, type ServiceStatus } from "@svc/schema";
import { readNewestWorkerHeartbeatAge } from "./worker-heartbeats";

const OK: ServiceCheck = { status: "ok" };
const DATABASE_DOWN: ServiceCheck = { status: "unavailable", detail: "Database unavailable" };

/**
 * Readiness (decisions.md "Bulk ingestion, operations, client"): the database answers, every migration this build
 * ships is applied, and some worker stamped its heartbeat within the last minute. Two small reads; a
 * failure of one is reported as that check, never thrown, so the probe always gets its body.
 */
export async function checkReadiness({ db, expectedMigrations }: { db: Db; expectedMigrations: readonly string[] }): Promise<ServiceStatus> {
  const [migrations, worker] = await Promise.all([
    checkMigrations(db, expectedMigrations).catch(asCheck),
    checkWorkerHeartbeat(db).catch(asCheck),
  ]);
  const database = migrations === DATABASE_DOWN || worker === DATABASE_DOWN ? DATABASE_DOWN : OK;
  const checks = { database, migrations, worker };
  const ready = Object.values(checks).every((check) => check.status === "ok");
  return { status: ready ? "ok" : "unavailable", checks };
}

async function checkMigrations(db: Db, expected: readonly string[]): Promise<ServiceCheck> {
  const rows = await selectSql<{ migration_name: string }>(
    db,
    Prisma.sql`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  const pending = expected.filter((name) => !applied.has(name));
  if (pending.length === 0) return OK;
  return { status: "unavailable", detail: `${pending.length} migration(s) not applied` };
}

async function checkWorkerHeartbeat(db: Db): Promise<ServiceCheck> {
  const age = await readNewestWorkerHeartbeatAge({ db });
  if (age !== null && age <= WORKER_HEARTBEAT_MAX_AGE_SECONDS) return OK;
  return { status: "unavailable", detail: `No worker heartbeat in the last ${WORKER_HEARTBEAT_MAX_AGE_SECONDS} s` };
}

/** A failed check: the database's absence by name; anything else without its internal text. */
function asCheck(error: unknown): ServiceCheck {
  if (isDatabaseUnavailable(error)) return DATABASE_DOWN;
  console.error("[svc] readiness check failed", error);
  return { status: "unavailable", detail: "Check failed" };
}
