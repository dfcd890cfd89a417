import { Prisma, executeSql, selectSql, type Db } from "@svc/db";

// The one module that writes `worker_heartbeat`. Plain pg through Prisma.sql templates: the worker
// keeps its hot path off Prisma's query compiler (ARCHITECTURE.md), and a stamp every few seconds is
// nowhere near a hot path either.

/** What a heartbeat row's process is: a worker, or the index maintenance process (not a worker anywhere). */
export type HeartbeatRole = "worker" | "maintenance";

/**
 * Stamps this process's row (created on its first beat) with its current metrics (prom-client's JSON
 * form, served by GET /api/metrics); also prunes the rows of processes dead a day.
 */
export async function recordWorkerHeartbeat({
  db,
  workerId,
  hostname,
  pid,
  startedAt,
  metrics = null,
  role = "worker",
}: {
  db: Db;
  workerId: string;
  hostname: string;
  pid: number;
  startedAt: Date;
  metrics?: unknown;
  role?: HeartbeatRole;
}): Promise<void> {
  const metricsJson = metrics === null ? null : JSON.stringify(metrics);
  await executeSql(
    db,
    Prisma.sql`INSERT INTO worker_heartbeat (worker_id, hostname, pid, started_at, seen_at, metrics, role)
      VALUES (${workerId}, ${hostname}, ${pid}, ${startedAt}, now(), ${metricsJson}::jsonb, ${role})
      ON CONFLICT (worker_id) DO UPDATE SET seen_at = now(), metrics = coalesce(EXCLUDED.metrics, worker_heartbeat.metrics)`,
  );
  await executeSql(db, Prisma.sql`DELETE FROM worker_heartbeat WHERE seen_at < now() - interval '1 day'`);
}

/** A stopping worker leaves: readiness then reflects the workers still running at once. */
export async function removeWorkerHeartbeat({ db, workerId }: { db: Db; workerId: string }): Promise<void> {
  await executeSql(db, Prisma.sql`DELETE FROM worker_heartbeat WHERE worker_id = ${workerId}`);
}

/** Seconds since the newest heartbeat of any worker; null when there is none. */
export async function readNewestWorkerHeartbeatAge({ db }: { db: Db }): Promise<number | null> {
  const [row] = await selectSql<{ age: number | null }>(
    db,
    Prisma.sql`SELECT extract(epoch FROM now() - max(seen_at))::float8 AS age FROM worker_heartbeat WHERE role = 'worker'`,
  );
  return row?.age ?? null;
}

/** The metrics each live worker or maintenance process (a heartbeat within `maxAgeSeconds`) last published. */
export async function listWorkerMetrics({
  db,
  maxAgeSeconds,
}: {
  db: Db;
  maxAgeSeconds: number;
}): Promise<{ workerId: string; role: HeartbeatRole; metrics: unknown }[]> {
  const rows = await selectSql<{ worker_id: string; role: HeartbeatRole; metrics: unknown }>(
    db,
    Prisma.sql`SELECT worker_id, role, metrics FROM worker_heartbeat
      WHERE metrics IS NOT NULL AND seen_at > now() - make_interval(secs => ${maxAgeSeconds}) ORDER BY worker_id`,
  );
  return rows.map((row) => ({ workerId: row.worker_id, role: row.role, metrics: row.metrics }));
}

/** A worker with a heartbeat: which process it is, where. */
export interface WorkerIdentity {
  workerId: string;
  hostname: string;
  pid: number;
}

/** The workers with a heartbeat within `maxAgeSeconds`: those that may be running (or died since). */
export async function listLiveWorkers({ db, maxAgeSeconds }: { db: Db; maxAgeSeconds: number }): Promise<WorkerIdentity[]> {
  const rows = await selectSql<{ worker_id: string; hostname: string; pid: number }>(
    db,
    Prisma.sql`SELECT worker_id, hostname, pid FROM worker_heartbeat
      WHERE role = 'worker' AND seen_at > now() - make_interval(secs => ${maxAgeSeconds}) ORDER BY worker_id`,
  );
  return rows.map((row) => ({ workerId: row.worker_id, hostname: row.hostname, pid: row.pid }));
}
