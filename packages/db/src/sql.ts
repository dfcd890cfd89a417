/**
 * The SQL layer: how a statement of svc reaches PostgreSQL. Which idiom a new statement uses:
 *
 * 1. **Prisma's builder** (`db.document.findUnique({ select })`) for plain CRUD on one table or along a
 *    relation: typed rows, named `select` objects, nothing to keep in step with the schema by hand.
 * 2. **`Prisma.sql` templates** for what the builder cannot say (locks, `FOR UPDATE`, CTEs, upserts
 *    with conditions, `ANY($1)`): run with `executeSql` / `selectSql` below, which take either a
 *    Prisma client or transaction or a plain pg connection, so one statement serves both kinds of
 *    transaction. A function that only ever holds a Prisma client may run the same template with
 *    Prisma's tagged `db.$queryRaw` / `db.$executeRaw` (the same idiom: values are parameters); the
 *    `…Unsafe` forms are for test support only (and for queryStatement below, whose text is a
 *    constant). Fragments that name a table alias take that alias as an argument (`sqlAlias`).
 * 3. **Named (prepared) pg statements** (`{ name, text, values }`) only on hot paths (ingestion's
 *    batch write, indexing), inside `withSqlTransaction` or through `queryStatement`: a Prisma
 *    interactive transaction costs ~1 ms of client work per call there, several times the SQL
 *    (bench/RESULTS.md), and a named statement is planned once per connection. `queryStatement` also
 *    runs one inside a Prisma transaction (unprepared), so a statement a hot path shares with a
 *    Prisma transaction (the index write intents, used by indexing and the rebuild pass) is written once.
 *
 * Each table has one core module that writes it (ARCHITECTURE.md, "The SQL layer", names them): add
 * a write next to its siblings there rather than inline in a caller.
 */
import { Prisma } from "./generated/prisma/client";
import { ownPoolOf, type DbOrTx, type SqlClient } from "./client";

/** A transaction of either kind: Prisma's (or the client itself, outside one) or a plain pg connection. */
export type AnyTx = DbOrTx | SqlClient;

/** A named (prepared) statement, for the hot paths. */
export interface NamedStatement {
  name: string;
  text: string;
  values: unknown[];
}

/** Runs a `Prisma.sql` statement and returns the number of rows it wrote. */
export async function executeSql(tx: AnyTx, statement: Prisma.Sql): Promise<number> {
  if (isPrisma(tx)) return tx.$executeRaw(statement);
  return (await tx.query(statement.text, statement.values)).rowCount ?? 0;
}

/** Runs a `Prisma.sql` query and returns its rows. (The template renders `$n` placeholders, as pg takes them.) */
export async function selectSql<Row>(tx: AnyTx, statement: Prisma.Sql): Promise<Row[]> {
  if (isPrisma(tx)) return tx.$queryRaw<Row[]>(statement);
  return (await tx.query(statement.text, statement.values)).rows as Row[];
}

/**
 * Runs a named statement on a connection in a transaction, or on the client's pool outside one. In a
 * Prisma transaction (which keeps its connection to itself) it runs the same text and parameters,
 * unprepared: a statement both kinds of transaction share is written once.
 */
export async function queryStatement<Row extends object>(on: AnyTx, statement: NamedStatement): Promise<Row[]> {
  if (!isPrisma(on)) return (await on.query<Row>(statement)).rows;
  const pool = ownPoolOf(on);
  if (pool) return (await pool.query<Row>(statement)).rows;
  return on.$queryRawUnsafe<Row[]>(statement.text, ...statement.values);
}

/** A table alias for a fragment; only plain identifiers, so no caller can pass SQL through one. */
export function sqlAlias(name: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a table alias: ${name}`);
  return Prisma.raw(name);
}

function isPrisma(tx: AnyTx): tx is DbOrTx {
  return "$executeRaw" in tx;
}
