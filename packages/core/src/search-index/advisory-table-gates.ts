import { withSqlTransaction, type Db } from "@svc/db";
import { WriteGate, type TableGate, type TableGates } from "@svc/search-index";

/** The first key of the search index's advisory locks ("SVCI"), apart from any other lock of svc's. */
const TABLE_LOCK_CLASS = 0x53564349;

/**
 * Table gates that hold across processes: each table's compaction takes a PostgreSQL advisory lock
 * alone (pg_advisory_xact_lock) and each updating write shares it (…_shared), so the maintenance
 * process's compactions and the workers' replaces, deletes and key refreshes keep apart as one
 * process's did (TableGate; docs/decisions.md "The search index"). Within the process a WriteGate
 * orders them first, so a waiting compaction holds back this process's new writes without a
 * connection each. The lock is named by the index's URI and the table, so indexes sharing a database
 * do not wait for each other. `db` should be a pool of its own: each write in flight holds one of its
 * connections for as long as its commit takes, and a compaction one for its whole run.
 */
export function advisoryTableGates(db: Db, indexUri: string): TableGates {
  const gates = new Map<string, TableGate>();
  return (tableName) => {
    let gate = gates.get(tableName);
    if (gate === undefined) gates.set(tableName, (gate = new AdvisoryTableGate(db, `${indexUri}#${tableName}`)));
    return gate;
  };
}

class AdvisoryTableGate implements TableGate {
  private readonly local = new WriteGate();

  constructor(
    private readonly db: Db,
    private readonly lockName: string,
  ) {}

  write<T>(work: () => Promise<T>): Promise<T> {
    return this.local.write(() => this.locked("pg_advisory_xact_lock_shared", work));
  }

  alone<T>(work: () => Promise<T>): Promise<T> {
    return this.local.alone(() => this.locked("pg_advisory_xact_lock", work));
  }

  /** Runs `work` holding the lock in `mode` for a transaction's length (released if the connection is lost). */
  private locked<T>(mode: "pg_advisory_xact_lock" | "pg_advisory_xact_lock_shared", work: () => Promise<T>): Promise<T> {
    return withSqlTransaction(this.db, async (client) => {
      await client.query(`SELECT ${mode}($1, hashtext($2))`, [TABLE_LOCK_CLASS, this.lockName]);
      return work();
    });
  }
}
