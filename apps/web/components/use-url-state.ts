"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * Page state kept in the URL's search params, so filters and pages survive a refresh, a shared link
 * and the back button. `update` sets (string) or removes (null) params and replaces the history entry.
 */
export function useUrlState() {
  // A string sets one value, a list sets the key once per item (the key repeated), null or "" removes it.
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const update = useCallback(
    (changes: Record<string, string | string[] | null>, { resetPages = false }: { resetPages?: boolean } = {}) => {
      const next = new URLSearchParams(params.toString());
      if (resetPages) for (const key of [...next.keys()]) if (key.startsWith("page.")) next.delete(key);
      for (const [key, value] of Object.entries(changes)) {
        next.delete(key);
        if (Array.isArray(value)) for (const item of value) next.append(key, item);
        else if (value !== null && value !== "") next.set(key, value);
      }
      const query = next.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [params, pathname, router],
  );
  return { params, update };
}

/** A comma-separated list param, keeping only the allowed values. */
export function listParam<T extends string>(params: { get(key: string): string | null }, key: string, allowed: readonly T[]): T[] {
  const raw = params.get(key);
  if (!raw) return [];
  return raw.split(",").filter((value): value is T => (allowed as readonly string[]).includes(value));
}
