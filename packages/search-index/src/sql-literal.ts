import { SearchIndexError } from "./search-index-error";

/**
 * Literals for LanceDB where-clauses (DataFusion SQL). Every value that reaches a predicate goes
 * through these: a string is quoted with its single quotes doubled (backslashes are plain characters
 * in SQL strings, so they need nothing), an integer is checked to be one.
 */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new SearchIndexError("INVALID_ARGUMENT", `Expected an integer, got ${String(value)}.`);
  }
  return String(value);
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
