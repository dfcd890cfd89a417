import type { DbOrTx, Prisma, SqlClient } from "@svc/db";

/**
 * A transaction of either kind: Prisma's interactive one (or the client itself, outside one), or a
 * plain pg connection in `withSqlTransaction` (the indexing hot path). The statements that both share (attempt bookkeeping,
 * pair transitions, generation locks, chunk writes) are written once, as `Prisma.sql`, and run on
 * either: the template renders `$n` placeholders that pg takes as they are.
 */
export type AnyTx = DbOrTx | SqlClient;

/** Runs a statement and returns the number of rows it wrote. */
export async function executeSql(tx: AnyTx, statement: Prisma.Sql): Promise<number> {
  if (isPrismaTx(tx)) return tx.$executeRaw(statement);
  return (await tx.query(statement.text, statement.values)).rowCount ?? 0;
}

/** Runs a query and returns its rows. */
export async function selectSql<Row>(tx: AnyTx, statement: Prisma.Sql): Promise<Row[]> {
  if (isPrismaTx(tx)) return tx.$queryRaw<Row[]>(statement);
  return (await tx.query(statement.text, statement.values)).rows as Row[];
}

function isPrismaTx(tx: AnyTx): tx is DbOrTx {
  return "$executeRaw" in tx;
}
