import { SearchIndexError } from "./search-index-error";

/**
 * Literals for LanceDB where-clauses (DataFusion SQL). Every value that reaches a predicate goes
 * through these: a string is quoted with its single quotes doubled (backslashes are plain characters
 * in SQL strings, so they need nothing), an integer is checked to be a 32-bit one.
 */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * An Int32 literal, for comparing with the table's Int32 columns (`cc_pair_ids`): a bare integer is an
 * Int64 in DataFusion, and the cast of the column it forces keeps LanceDB from using the column's
 * scalar index (the where-clause is then evaluated on every row).
 */
export function sqlInt32(value: number): string {
  if (!Number.isSafeInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) {
    throw new SearchIndexError("INVALID_ARGUMENT", `Expected a 32-bit integer, got ${String(value)}.`);
  }
  return `arrow_cast(${value}, 'Int32')`;
}

export function sqlTimestamp(value: Date): string {
  if (Number.isNaN(value.getTime())) throw new SearchIndexError("INVALID_ARGUMENT", "Invalid date.");
  return `TIMESTAMP ${sqlString(value.toISOString())}`;
}

/** `column` holds any of `values` (a list column); FALSE for an empty list, as `= ANY('{}')` is. */
export function sqlListHasAny(column: string, values: readonly string[]): string {
  if (values.length === 0) return "FALSE";
  return `array_has_any(${column}, [${values.join(", ")}])`;
}

/** `column` is one of `values`; FALSE for an empty list. */
export function sqlIn(column: string, values: readonly string[]): string {
  if (values.length === 0) return "FALSE";
  return `${column} IN (${values.join(", ")})`;
}
