"use client";
import { MultiSelect } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "../lib/trpc/client";

/**
 * Picks pairs among those the session sees (`#3 Team wiki`), or only those `offered` keeps; an empty
 * pick reads as `placeholder` ("All connectors"), which is what the forms send it as.
 */
export function PairPicker({
  label,
  description,
  placeholder,
  value,
  onChange,
  offered = () => true,
}: {
  label: string;
  description: string;
  placeholder: string;
  value: string[];
  onChange: (value: string[]) => void;
  offered?: (ccPairId: number) => boolean;
}) {
  const trpc = useTRPC();
  const pairs = useQuery(trpc.connectors.indexingStatus.queryOptions({ getAllConnectors: true }));
  const options = useMemo(
    () =>
      (pairs.data ?? []).flatMap((group) =>
        group.indexingStatuses.flatMap((row) =>
          "ccPairId" in row && offered(row.ccPairId) ? [{ value: String(row.ccPairId), label: `#${row.ccPairId} ${row.name}` }] : [],
        ),
      ),
    [pairs.data, offered],
  );
  return (
    <MultiSelect
      label={label}
      description={description}
      placeholder={value.length ? undefined : placeholder}
      data={options}
      value={value}
      onChange={onChange}
      searchable
      clearable
      limit={50}
      nothingFoundMessage={pairs.isLoading ? "Loading…" : "No connector"}
    />
  );
}
