import type { Table } from "@lancedb/lancedb";

/**
 * A value kept for each open table, made on its first use: a table's append queue.
 * A table opened again gets a new one (its writes then meet the old handle's as another process's do).
 */
export function perTable<T>(create: (table: Table) => T): (table: Table) => T {
  const values = new WeakMap<Table, T>();
  return (table) => {
    let value = values.get(table);
    if (value === undefined) values.set(table, (value = create(table)));
    return value;
  };
}
