import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { Prisma, PrismaClient } from "./generated/prisma/client";
import { DatabaseGuard, createGuardedPool } from "./guard-database";
import { QUERY_CANCELED } from "./is-database-unavailable";

export type Db = PrismaClient;
/** The client handed to a callback of `db.$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
/** Anything core functions can query through: the client itself or an open transaction. */
export type DbOrTx = Db | Tx;
export type SqlClient = pg.PoolClient;

export interface CreateDbOptions {
  databaseUrl: string;
  /** Connections in this process's pool. */
  poolSize?: number;
  /** Shown in pg_stat_activity (e.g. "svc-web"), so each process's connections can be counted. */
  applicationName?: string;
  /**
   * Longest a single statement may run on this pool's connections, in ms (PostgreSQL's
   * `statement_timeout`); none when left out. The web process bounds the queries clients shape; the
   * worker and migrations run without one.
   */
  statementTimeoutMs?: number;
  /** Longest wait for a connection from the pool (a free one or a new one), in ms. */
  acquireTimeoutMs?: number;
  /** Longest wait for a new connection's handshake, in ms; also the deadline of the stall probe. */
  connectTimeoutMs?: number;
}

/** Defaults of the database deadlines (README "Limits and overload"). */
export const DB_ACQUIRE_TIMEOUT_MS = 2_000;
export const DB_CONNECT_TIMEOUT_MS = 2_000;
/** A statement unanswered this long makes the pool probe the server (guard-database.ts). */
const STALL_AFTER_MS = 1_000;
/** The client-side deadline of a statement trails the server's, which should fire first and say why. */
const CLIENT_STATEMENT_MARGIN_MS = 1_000;

// Registered on globalThis: Next.js bundles this package once per server layer (route handlers,
// server components) and the production server once more, and all of them share one client
// (apps/web/server/services.ts), so every copy of this module must find the client's pool.
const POOLS_KEY = Symbol.for("svc.db.pools");
const pools = ((globalThis as { [POOLS_KEY]?: WeakMap<Db, pg.Pool> })[POOLS_KEY] ??= new WeakMap<Db, pg.Pool>());
const GUARDS_KEY = Symbol.for("svc.db.guards");
const guards = ((globalThis as { [GUARDS_KEY]?: WeakMap<Db, DatabaseGuard> })[GUARDS_KEY] ??= new WeakMap<Db, DatabaseGuard>());

/** One client per process. Its pg pool is shared by Prisma and by the raw-SQL hot paths. */
export function createDb({
  databaseUrl,
  poolSize = 10,
  applicationName,
  statementTimeoutMs,
  acquireTimeoutMs = DB_ACQUIRE_TIMEOUT_MS,
  connectTimeoutMs = DB_CONNECT_TIMEOUT_MS,
}: CreateDbOptions): Db {
  // Every statement is planned with its arguments. The hot paths use named statements, and after five
  // runs PostgreSQL may keep a generic plan made while a table was nearly empty: during a bulk load,
  // one such plan (a sequential scan under a per-row subquery) took 17 s a batch instead of 2 ms.
  // Planning these batch statements costs a fraction of a millisecond. No JIT either: svc's queries
  // are short, and with statistics that lag a bulk load JIT compiled the listing's (+40-60 ms a call).
  //
  // Every wait on the server is bounded (decisions.md "Limits and overload"): the checkout, the
  // handshake, each statement (client-side too: a frozen server cannot cancel its own statement), and
  // the guard tells a frozen server from a slow statement within about STALL_AFTER_MS + connectTimeoutMs.
  // Its probe takes one of the pool's connections, so the process never holds more than poolSize.
  const guard = new DatabaseGuard({ connectionString: databaseUrl, applicationName, probeTimeoutMs: connectTimeoutMs, stallAfterMs: STALL_AFTER_MS });
  const pool = createGuardedPool({
    guard,
    connectTimeoutMs,
    connectionString: databaseUrl,
    max: Math.max(1, poolSize - 1),
    application_name: applicationName,
    options: "-c plan_cache_mode=force_custom_plan -c jit=off",
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs === undefined ? undefined : statementTimeoutMs + CLIENT_STATEMENT_MARGIN_MS,
    connectionTimeoutMillis: acquireTimeoutMs,
    // A peer that vanished (a partition, a dead host) is noticed by the kernel, not by the next statement.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle connection the server closes (restart, failover, a dropped database) must not crash the
  // process; the pool replaces it on the next query.
  pool.on("error", (error) => console.error("[db] idle connection lost:", error.message));
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  // Prisma disposes the pool only if it ever connected through it; raw-SQL-only processes never do.
  const disconnect = db.$disconnect.bind(db);
  db.$disconnect = async () => {
    guard.close();
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  pools.set(db, pool);
  guards.set(db, guard);
  return db;
}

/**
 * Runs `work` in a transaction on a plain pg connection from the client's pool. For hot paths only:
 * a Prisma interactive transaction costs about 1 ms of client-side work per call here, several
 * times the SQL itself (see bench/RESULTS.md). Everything else goes through Prisma.
 */
export async function withSqlTransaction<T>(db: Db, work: (client: SqlClient) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  // The pool listens for errors on idle connections only: a connection the server closes while it is
  // checked out here but between two statements (the indexer does JS work inside its transaction)
  // would otherwise emit an unhandled 'error' and crash the process. The next statement fails anyway.
  const onError = (error: Error) => console.error("[db] connection lost in a transaction:", error.message);
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", onError);
    client.release();
  }
}

/**
 * One raw statement outside a transaction, for the same hot paths. A `name` makes it a prepared
 * statement, planned once per connection.
 */
export async function querySql<Row extends pg.QueryResultRow>(
  db: Db,
  statement: { name?: string; text: string; values?: unknown[] },
): Promise<Row[]> {
  return (await poolOf(db).query<Row>(statement)).rows;
}

/**
 * Runs `work`, whose statements must start with the `tag` it is given, and cancels whichever of them
 * is still running on the server when `signal` aborts (the client went away): without this, a
 * statement keeps its connection and CPU after nobody waits for its answer. The statement is found by
 * its tag in pg_stat_activity, so this works for Prisma queries too, which hide their connection.
 * The cancelled statement fails with SQLSTATE 57014 (see isQueryCanceled).
 */
export async function withCancelOnAbort<T>(db: DbOrTx, signal: AbortSignal | undefined, work: (tag: Prisma.Sql) => Promise<T>): Promise<T> {
  const requestId = randomUUID();
  const tag = Prisma.raw(`/* svc-request ${requestId} */ `);
  // A transaction's client has no pool of its own to send the cancel through; it runs uncancelled.
  const pool = pools.get(db as Db);
  if (!signal || !pool) return await work(tag);
  // The tag is the statement's first bytes, so pg_stat_activity's truncated text still holds it.
  const cancel = cancelWhere(pool, "state = 'active' AND pid <> pg_backend_pid() AND starts_with(query, $1)", [tag.text]);
  return cancelledOnAbort(signal, cancel, () => work(tag));
}

/** A function that cancels, through `pool`, the statements of the backends pg_stat_activity finds `where`. */
function cancelWhere(pool: pg.Pool, where: string, values: unknown[]): () => void {
  return () => {
    pool
      .query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE ${where}`, values)
      .catch((error: unknown) => console.error("[db] could not cancel a statement:", (error as Error).message));
  };
}

/** Runs `work`, calling `cancel` if `signal` aborts meanwhile; fails as a cancelled statement would if it already has. */
async function cancelledOnAbort<T>(signal: AbortSignal, cancel: () => void, work: () => Promise<T>): Promise<T> {
  // Nobody waits for the answer any more: fail as a cancelled statement would, without running it.
  if (signal.aborted) throw Object.assign(new Error("canceling statement due to user request"), { code: QUERY_CANCELED });
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/**
 * An interactive transaction that `signal` cuts short: when it aborts, the statement the transaction
 * is running (a lock wait too) is cancelled, so the transaction rolls back at once and this rejects
 * with SQLSTATE 57014 (isQueryCanceled) rather than waiting for its work to end. The cancel names the
 * transaction's backend and its start time, so it cannot reach a later user of the same connection.
 */
export async function transactionCancelledOnAbort<T>(
  db: Db,
  signal: AbortSignal | undefined,
  work: (tx: Tx) => Promise<T>,
  options: { timeout?: number } = {},
): Promise<T> {
  if (!signal) return db.$transaction(work, options);
  const pool = poolOf(db);
  return db.$transaction(async (tx) => {
    const [backend] = await tx.$queryRaw<{ pid: number; started: string }[]>`SELECT pg_backend_pid() AS pid, now()::text AS started`;
    const cancel = cancelWhere(pool, "pid = $1 AND xact_start = $2::timestamptz", [backend?.pid, backend?.started]);
    return cancelledOnAbort(signal, cancel, () => work(tx));
  }, options);
}

/**
 * Whether the database of a client createDb() made is taken for unanswering: a statement or a
 * connection missed its deadline and no probe has answered since. Every checkout fails at once then.
 */
export function isDatabaseStalled(db: Db): boolean {
  return guards.get(db)?.isOpen ?? false;
}

/**
 * One `SELECT 1` through the pool of a client createDb() made: resolves once the database answers,
 * fails at once while isDatabaseStalled, and otherwise within the pool's deadlines (on a server that
 * froze, about a second and the connect timeout, when the breaker opens). The failure is one
 * isDatabaseUnavailable recognises.
 */
export async function pingDatabase(db: Db): Promise<void> {
  await poolOf(db).query("SELECT 1");
}

/**
 * Settles once the database of a client createDb() made answers again (at once unless
 * isDatabaseStalled), or after `timeoutMs`: a worker holds its next batch meanwhile rather than fail
 * it into a retry.
 */
export async function whenDatabaseAnswers(db: Db, timeoutMs: number): Promise<void> {
  await guards.get(db)?.whenClosed(timeoutMs);
}

/** The pg pool of a client createDb() made; undefined for one of its transactions (or another client). */
export function ownPoolOf(db: DbOrTx): pg.Pool | undefined {
  return pools.get(db as Db);
}

function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("this Prisma client was not made by createDb()");
  return pool;
}
