"use client";
// The console's tRPC client: one batched HTTP link to /api/trpc (same origin, so the session cookie
// rides along) with superjson, so dates arrive as Date; hooks come from the React Query integration.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../../server/trpc/router";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function createConsoleTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: "/api/trpc", transformer: superjson })],
  });
}

/**
 * `onSignedOut` runs when a query is refused for want of a session (it ended, expired, or its key was
 * revoked); `onDatabaseAvailable(false)` when a call failed because svc cannot reach its database, and
 * `(true)` when a query succeeds again.
 */
export function createConsoleQueryClient({
  onSignedOut,
  onDatabaseAvailable,
}: {
  onSignedOut: () => void;
  onDatabaseAvailable: (available: boolean) => void;
}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (trpcErrorCode(error) === "UNAUTHORIZED") onSignedOut();
        if (isDatabaseUnavailable(error)) onDatabaseAvailable(false);
      },
      onSuccess: () => onDatabaseAvailable(true),
    }),
    mutationCache: new MutationCache({
      onError: (error) => {
        if (isDatabaseUnavailable(error)) onDatabaseAvailable(false);
      },
    }),
    defaultOptions: {
      queries: {
        // Pages poll what changes on their own (the status listing, health); the rest is fresh
        // enough for a few seconds and refetched when the window regains focus.
        staleTime: 5_000,
        // A 4xx (signed out, forbidden, not found) will not heal by retrying.
        retry: (failureCount, error) => failureCount < 2 && !isClientError(error),
      },
    },
  });
}

function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}

/** The tRPC error code of a failed call (UNAUTHORIZED, FORBIDDEN, NOT_FOUND, …), if it has one. */
export function trpcErrorCode(error: unknown): string | undefined {
  return (error as { data?: { code?: string } } | null)?.data?.code;
}

/** Whether a failed call says svc cannot reach its database (the error table's DATABASE_UNAVAILABLE). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return (error as { data?: { appCode?: string | null } } | null)?.data?.appCode === "DATABASE_UNAVAILABLE";
}
