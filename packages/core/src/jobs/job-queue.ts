import { createHash } from "node:crypto";
import { fromPrisma, PgBoss, type Db as IDatabase, type Job } from "pg-boss";
import { DB_ACQUIRE_TIMEOUT_MS, isDatabaseUnavailable, type SqlClient, type Tx } from "@svc/db";
import { DEAD_LETTER_QUEUE, JOB_CATALOG, type JobDefinition } from "./catalog";
import { PollRotation } from "./poll-rotation";

export type { PgBoss };

export interface CreateJobQueueOptions {
  databaseUrl: string;
  /** Producers (the web app) only send; workers also run pg-boss's maintenance. */
  role: "producer" | "worker";
  poolSize?: number;
}

/**
 * How often a worker's pg-boss supervisor looks for jobs to fail: expired ones and, above all, those
 * whose heartbeat lapsed (a killed worker's, see HEARTBEAT_SECONDS in catalog.ts). pg-boss runs the
 * check only on a pass of the supervisor (`superviseIntervalSeconds`) once the queue's monitor slot
 * is due (`monitorIntervalSeconds`), one worker per slot across all of them; both default to 60 s,
 * which would add up to two minutes to a killed worker's recovery. The monitor pass also refreshes
 * the queue counts with a scan of the job table; pg-boss defers that scan on its own when it gets
 * slow, never the expiry and heartbeat checks.
 */
export const JOB_SUPERVISE_SECONDS = 10;

/** Opens pg-boss on the service database. Its schema must have been installed (installJobQueues). */
/**
 * pg-boss hands its options to its own pg pool: bounded waits and keepalive there too, so a poll on a
 * database that stopped answering fails (and pg-boss polls again later) instead of hanging.
 */
const JOB_QUEUE_DEADLINES = {
  connectionTimeoutMillis: DB_ACQUIRE_TIMEOUT_MS,
  query_timeout: 60_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
};

export async function startJobQueue({ databaseUrl, role, poolSize = 4 }: CreateJobQueueOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    ...JOB_QUEUE_DEADLINES,
    connectionString: databaseUrl,
    max: poolSize,
    migrate: false,
    createSchema: false,
    supervise: role === "worker",
    superviseIntervalSeconds: JOB_SUPERVISE_SECONDS,
    monitorIntervalSeconds: JOB_SUPERVISE_SECONDS,
    schedule: false,
    application_name: `svc-${role}`,
  });
  boss.on("error", (error: unknown) => {
    // While the database is away (a restart) every poll fails: one line each, no stack. Otherwise the
    // message and stack, not the pg client (connection parameters included) that pg-boss leaves
    // attached to the error.
    if (isDatabaseUnavailable(error)) console.error(`[pg-boss] database unavailable: ${(error as Error).message}`);
    else console.error("[pg-boss]", error instanceof Error ? (error.stack ?? error.message) : error);
  });
  try {
    await boss.start();
  } catch (error) {
    // Unreachable database: callers retry later, so this attempt's pool must not stay open.
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw error;
  }
  return boss;
}

/** Installs (or upgrades) pg-boss's schema and creates every queue of the catalog. Idempotent. */
export async function installJobQueues(databaseUrl: string): Promise<void> {
  const boss = new PgBoss({ connectionString: databaseUrl, max: 2, supervise: false, schedule: false });
  await boss.start();
  try {
    const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
    if (!existing.has(DEAD_LETTER_QUEUE)) await boss.createQueue(DEAD_LETTER_QUEUE);
    for (const job of JOB_CATALOG) {
      if (existing.has(job.name)) await boss.updateQueue(job.name, job.queue);
      else await boss.createQueue(job.name, job.queue);
    }
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

/**
 * Sends a job; the payload is validated first. Pass the open transaction (`tx` for Prisma, `sql` for
 * a raw pg one) to write the job row inside it, so the job commits or rolls back with the data it
 * refers to.
 */
export async function sendJob<Payload>(
  boss: PgBoss,
  job: JobDefinition<Payload>,
  payload: Payload,
  { tx, sql }: { tx?: Tx; sql?: SqlClient } = {},
): Promise<string> {
  const data = job.payload.parse(payload) as object;
  const db = tx ? fromPrisma(tx) : sql ? preparedStatementsOn(sql) : undefined;
  const id = await boss.send(job.name, data, db ? { db } : {});
  if (id === null) throw new Error(`pg-boss did not accept a ${job.name} job`);
  return id;
}

/**
 * pg-boss's insert is a large statement; as a named (prepared) statement PostgreSQL plans it once per
 * connection instead of on every job.
 */
export function preparedStatementsOn(sql: SqlClient): IDatabase {
  return {
    executeSql: (text, values) => sql.query({ name: `pgboss-${createHash("sha1").update(text).digest("hex")}`, text, values }),
  };
}

/**
 * A job as a handler receives it: its id, how many times it was tried before, its validated payload,
 * and pg-boss's signal, aborted when the job is no longer the handler's (a stopping worker failed it
 * at the end of its grace period, or its claim was lost).
 */
export interface ReceivedJob<Payload> {
  id: string;
  retryCount: number;
  payload: Payload;
  signal: AbortSignal;
}

export interface WorkOptions {
  batchSize?: number;
  pollingIntervalSeconds?: number;
  localConcurrency?: number;
  burstWhenBatchFull?: boolean;
  /**
   * Run the `localConcurrency` pollers in turn (PollRotation): one of them fetches every interval ÷ N
   * instead of all of them together once an interval, so a new job waits about interval ÷ N (0.5 s at
   * least in pg-boss) for a fetch. Each poller's own timer is then a backstop N intervals long.
   */
  pollInTurn?: boolean;
}

/** Registers a handler; payloads are validated on receipt (a bad payload fails the job). */
export async function workJobs<Payload>(
  boss: PgBoss,
  job: JobDefinition<Payload>,
  { pollInTurn = false, ...options }: WorkOptions,
  handler: (payloads: ReceivedJob<Payload>[]) => Promise<void>,
): Promise<void> {
  const handle = async (jobs: Job<object>[]) => {
    await handler(jobs.map((received) => ({ id: received.id, retryCount: received.retryCount, payload: job.payload.parse(received.data), signal: received.signal })));
  };
  const pollers = options.localConcurrency ?? 1;
  if (!pollInTurn || pollers === 1) {
    await boss.work<object>(job.name, options, handle);
    return;
  }
  const intervalMs = (options.pollingIntervalSeconds ?? 2) * 1000;
  const rotation = new PollRotation((pollerId) => boss.notifyWorker(pollerId));
  const backstop = { ...options, localConcurrency: 1, pollingIntervalSeconds: (intervalMs * pollers) / 1000 };
  for (let started = 0; started < pollers; started += 1) {
    const poller = rotation.add();
    poller.id = await boss.work<object>(job.name, backstop, (jobs) => rotation.handling(poller, () => handle(jobs)));
  }
  const ticker = setInterval(() => rotation.tick(), intervalMs / pollers);
  ticker.unref();
  boss.once("stopped", () => clearInterval(ticker));
}
