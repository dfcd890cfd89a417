"use client";
import { Table, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { formatDateTime, formatRelative } from "./format";

export interface Column {
  label: ReactNode;
  align?: "right";
  /** The header's aria-sort, for a column the table is ordered by. */
  sort?: "ascending" | "descending";
}

/** The console's tables: labelled for assistive tech, scrolling sideways on narrow screens. */
export function DataTable({
  label,
  minWidth,
  columns,
  children,
  verticalSpacing = "xs",
}: {
  label: string;
  minWidth?: number;
  columns: (string | Column)[];
  children: ReactNode;
  verticalSpacing?: "xs" | number;
}) {
  return (
    <Table.ScrollContainer minWidth={minWidth ?? 0}>
      <Table verticalSpacing={verticalSpacing} highlightOnHover aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, index) => {
              const { label: text, align, sort } = typeof column === "string" ? { label: column, align: undefined, sort: undefined } : column;
              return (
                <Table.Th key={index} ta={align} aria-sort={sort}>
                  {text}
                </Table.Th>
              );
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** "3 minutes ago", with the exact time on hover. */
export function RelativeTime({ value }: { value: Date | string | null }) {
  return (
    <Text size="sm" title={formatDateTime(value)}>
      {formatRelative(value)}
    </Text>
  );
}
