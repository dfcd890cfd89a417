import pg from "pg";

/**
 * The code of the error a guarded pool fails with while its breaker is open (isDatabaseUnavailable
 * recognises it): the database stopped answering and has not answered a probe since.
 */
export const DATABASE_STALLED = "SVC_DB_STALLED";

/** pg's messages for its own client-side deadlines: a statement, a checkout, a new connection. */
const QUERY_READ_TIMEOUT = "Query read timeout";
const ACQUIRE_TIMEOUT = "timeout exceeded when trying to connect";
const CONNECT_TIMEOUT = /^Connection terminated due to connection timeout|^timeout expired/;

export interface DatabaseGuardOptions {
  connectionString: string;
  /** The probe's name in pg_stat_activity: the pool's, since it counts among the pool's connections. */
  applicationName?: string;
  /** Longest wait for a probe's new connection and its `SELECT 1`, in ms. */
  probeTimeoutMs: number;
  /** A statement unanswered this long makes the guard ask the server whether it still answers. */
  stallAfterMs: number;
}

/**
 * A circuit breaker over one pg pool, for a database that is up but does not answer (frozen host,
 * partition, failover): decisions.md "Limits and overload".
 *
 * Closed: statements run. A new connection's handshake or a statement past its client-side deadline
 * opens the breaker at once. A statement unanswered past `stallAfterMs`, or a full pool's checkout
 * deadline, starts a probe (one new connection, `SELECT 1`, within `probeTimeoutMs`) that tells a
 * slow statement from a server that answers nothing; a probe that fails opens the breaker too.
 * Opening destroys the connections waiting on the server (their statements fail, their transactions
 * roll back on the server) and fails every checkout at once with DATABASE_STALLED. Open: a probe
 * every `probeTimeoutMs` (half-open); the first that answers closes the breaker. A slow statement
 * on a server whose probe fails (a handshake slower than `probeTimeoutMs`) is cut too.
 */
export class DatabaseGuard {
  private state: "closed" | "open" = "closed";
  private probing = false;
  private lastProbe = Number.NEGATIVE_INFINITY;
  private readonly inFlight = new Map<pg.Client, number>();
  private readonly waiters = new Set<(error: Error) => void>();
  private readonly closeWaiters = new Set<() => void>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: DatabaseGuardOptions) {
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.min(options.stallAfterMs, options.probeTimeoutMs) / 4));
    this.timer.unref();
  }

  /** Whether the database is taken for unanswering: checkouts fail at once. */
  get isOpen(): boolean {
    return this.state === "open";
  }

  /** The error a checkout fails with while the breaker is open. */
  stalledError(): Error {
    return Object.assign(new Error("the database does not answer"), { code: DATABASE_STALLED });
  }

  /** Settles once the breaker is closed (at once when it is), or after `timeoutMs` whatever it is. */
  async whenClosed(timeoutMs: number): Promise<void> {
    if (this.state === "closed") return;
    let timer: NodeJS.Timeout | undefined;
    let done = () => {};
    await new Promise<void>((resolve) => {
      done = resolve;
      this.closeWaiters.add(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
    this.closeWaiters.delete(done);
  }

  /** Calls `onOpen` with the breaker's error if it opens before `unsubscribe` is called. */
  onOpen(onOpen: (error: Error) => void): () => void {
    this.waiters.add(onOpen);
    return () => this.waiters.delete(onOpen);
  }

  statementStarted(client: pg.Client): void {
    if (!this.inFlight.has(client)) this.inFlight.set(client, performance.now());
  }

  statementEnded(client: pg.Client, error: unknown): void {
    this.inFlight.delete(client);
    // Past statement_timeout and its margin the server did not even cancel it: it does not answer.
    if (isServerDeadlineError(error)) this.open();
  }

  /** A checkout failed: a handshake past its deadline means the server does not answer; a full pool, maybe. */
  connectFailed(error: unknown): void {
    if (isServerDeadlineError(error)) this.open();
    else if (isDeadlineError(error)) void this.probe(true);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    if (this.state === "open") {
      void this.probe();
      return;
    }
    const now = performance.now();
    for (const started of this.inFlight.values()) {
      if (now - started >= this.options.stallAfterMs) {
        void this.probe();
        return;
      }
    }
  }

  /** One probe at a time, and (unless a deadline just passed) one per `probeTimeoutMs` at most. */
  private async probe(now = false): Promise<void> {
    if (this.probing || (!now && performance.now() - this.lastProbe < this.options.probeTimeoutMs)) return;
    this.probing = true;
    try {
      const answered = await probeDatabase(this.options);
      if (answered) this.closeBreaker();
      else this.open();
    } finally {
      this.probing = false;
      this.lastProbe = performance.now();
    }
  }

  private closeBreaker(): void {
    if (this.state === "open") console.error("[db] the database answers again");
    this.state = "closed";
    for (const resolve of this.closeWaiters) resolve();
    this.closeWaiters.clear();
  }

  private open(): void {
    if (this.state !== "open") console.error("[db] the database does not answer: failing fast until a probe succeeds");
    this.state = "open";
    const error = this.stalledError();
    for (const waiter of this.waiters) waiter(error);
    this.waiters.clear();
    // Their server may answer one day, but nobody can wait that long: end them (the pool drops a
    // client that ended, and the server rolls back their open transactions when it reads the close).
    for (const client of this.inFlight.keys()) destroyClient(client);
    this.inFlight.clear();
  }
}

/** Whether the server takes a new connection and answers `SELECT 1` within the probe's deadline. */
async function probeDatabase({ connectionString, applicationName, probeTimeoutMs }: DatabaseGuardOptions): Promise<boolean> {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: probeTimeoutMs,
    query_timeout: probeTimeoutMs,
    application_name: applicationName,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    destroyClient(client);
  }
}

/** Ends `client` without waiting for its server: the socket is destroyed when a statement is running. */
function destroyClient(client: pg.Client): void {
  client.end().catch(() => undefined);
}

/** Whether `error` is one of pg's client-side deadlines (as opposed to an answer from the server). */
export function isDeadlineError(error: unknown): boolean {
  // pg-boss appends the queue and worker to a failed poll's message: "… connect (Queue: q, Worker: w)".
  return isServerDeadlineError(error) || (error instanceof Error && error.message.startsWith(ACQUIRE_TIMEOUT));
}

/** A deadline only the server could have missed: its handshake, or a statement it did not cancel itself. */
function isServerDeadlineError(error: unknown): boolean {
  return error instanceof Error && (error.message === QUERY_READ_TIMEOUT || CONNECT_TIMEOUT.test(error.message));
}

/** Whether `error` is a deadline the guard set or the breaker's own refusal. */
export function isStalledError(error: unknown): boolean {
  return isDeadlineError(error) || (typeof error === "object" && error !== null && (error as { code?: unknown }).code === DATABASE_STALLED);
}

export interface GuardedPoolOptions extends pg.PoolConfig {
  guard: DatabaseGuard;
  /** Longest wait for a new connection's handshake, in ms (the pool's own deadline bounds the whole checkout). */
  connectTimeoutMs: number;
}

/**
 * A pg pool whose clients report their statements to `guard`, end themselves after a client-side
 * statement deadline (their server may still be running it, so they are never reused), and whose
 * checkouts fail at once while the guard's breaker is open.
 */
export function createGuardedPool({ guard, connectTimeoutMs, ...config }: GuardedPoolOptions): pg.Pool {
  class GuardedClient extends pg.Client {
    constructor(clientConfig: pg.ClientConfig = {}) {
      super({ ...clientConfig, connectionTimeoutMillis: connectTimeoutMs });
    }

    // pg's query takes a dozen shapes; the guard only needs to see each one start and end.
    override query(...args: unknown[]): never {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to `this` below
      const query = super.query as (...queryArgs: unknown[]) => unknown;
      const last = args.at(-1);
      const ended = (error: unknown) => {
        guard.statementEnded(this, error);
        if (isDeadlineError(error)) destroyClient(this);
      };
      guard.statementStarted(this);
      if (typeof last === "function") {
        const callback = last as (error: unknown, result: unknown) => void;
        return query.apply(this, [
          ...args.slice(0, -1),
          (error: unknown, result: unknown) => {
            ended(error);
            callback(error, result);
          },
        ]) as never;
      }
      const result = query.apply(this, args);
      if (result instanceof Promise) {
        return result.then(
          (value: unknown) => {
            ended(undefined);
            return value;
          },
          (error: unknown) => {
            ended(error);
            throw error;
          },
        ) as never;
      }
      // A submittable (a cursor): not watched.
      guard.statementEnded(this, undefined);
      return result as never;
    }
  }

  class GuardedPool extends pg.Pool {
    override connect(): Promise<pg.PoolClient>;
    override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
    override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
      const checkout = this.guardedConnect();
      if (!callback) return checkout;
      checkout.then(
        (client) => callback(undefined, client, (release) => client.release(release as Error | boolean | undefined)),
        (error: Error) => callback(error, undefined, () => undefined),
      );
    }

    private async guardedConnect(): Promise<pg.PoolClient> {
      if (guard.isOpen) throw guard.stalledError();
      let unsubscribe = () => {};
      const opened = new Promise<never>((_, reject) => {
        unsubscribe = guard.onOpen(reject);
      });
      const checkout = super.connect();
      try {
        return await Promise.race([checkout, opened]);
      } catch (error) {
        guard.connectFailed(error);
        // A checkout that completes after the breaker opened goes straight back to the pool.
        checkout.then((client) => client.release(), () => undefined);
        throw error;
      } finally {
        unsubscribe();
      }
    }
  }

  return new GuardedPool({ ...config, Client: GuardedClient });
}
