"use client";
import { Text, UnstyledButton } from "@mantine/core";

export type SortDirection = "asc" | "desc";
export interface ColumnSort<C extends string> {
  column: C;
  direction: SortDirection;
}

/** A column's label, and where a first click starts (names A→Z; counts and times largest or newest first). */
export type SortableColumns<C extends string> = Record<C, { label: string; firstDirection: SortDirection }>;

/** The URL's `sort` param: a column, `-` in front for descending; anything else is no sort. */
export function sortFromParam<C extends string>(value: string | null, columns: readonly C[]): ColumnSort<C> | null {
  if (!value) return null;
  const column = value.replace(/^-/, "");
  return (columns as readonly string[]).includes(column) ? { column: column as C, direction: value.startsWith("-") ? "desc" : "asc" } : null;
}

export function sortParam<C extends string>(sort: ColumnSort<C>): string {
  return `${sort.direction === "desc" ? "-" : ""}${sort.column}`;
}

/** A header cell's aria-sort for `column`. */
export function ariaSort<C extends string>(sort: ColumnSort<C> | null, column: C): "ascending" | "descending" | undefined {
  if (sort?.column !== column) return undefined;
  return sort.direction === "asc" ? "ascending" : "descending";
}

/** A column header that sorts by its column; a second click turns the order round. */
export function SortHeader<C extends string>({
  column,
  columns,
  sort,
  onSort,
}: {
  column: C;
  columns: SortableColumns<C>;
  sort: ColumnSort<C> | null;
  onSort: (sort: ColumnSort<C>) => void;
}) {
  const { label, firstDirection } = columns[column];
  const active = sort?.column === column ? sort.direction : null;
  const next = active === null ? firstDirection : active === "asc" ? "desc" : "asc";
  return (
    <UnstyledButton
      onClick={() => onSort({ column, direction: next })}
      aria-label={`Sort by ${label}${active ? ` (${active === "asc" ? "ascending" : "descending"})` : ""}`}
      fw={700}
      fz="sm"
      style={{ whiteSpace: "nowrap" }}
    >
      {label}
      <Text span c={active ? undefined : "dimmed"} ml={4} aria-hidden>
        {active === "asc" ? "▲" : active === "desc" ? "▼" : "↕"}
      </Text>
    </UnstyledButton>
  );
}
