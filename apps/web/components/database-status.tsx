"use client";
import { Alert, Container, Text } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useRef } from "react";
import { useTRPC } from "../lib/trpc/client";

/** False while the console's last calls failed because svc cannot reach its database. */
export const DatabaseAvailableContext = createContext(true);

const PROBE_INTERVAL_MS = 3_000;

/**
 * The console's "database unavailable" state: a banner at the top of every page while svc cannot
 * reach its database. It probes every few seconds (pages that do not poll would otherwise stay on
 * their error) and, once the database answers, reloads every query and disappears.
 */
export function DatabaseUnavailableBanner() {
  const available = useContext(DatabaseAvailableContext);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useQuery({ ...trpc.session.me.queryOptions(), enabled: !available, refetchInterval: PROBE_INTERVAL_MS, retry: false });
  const wasAvailable = useRef(available);
  useEffect(() => {
    if (available && !wasAvailable.current) void queryClient.invalidateQueries();
    wasAvailable.current = available;
  }, [available, queryClient]);
  if (available) return null;
  return <DatabaseUnavailableAlert />;
}

/** Also the whole page when the server could not check the session for want of a database. */
export function DatabaseUnavailableAlert() {
  return (
    <Alert color="orange" title="Database unavailable" role="alert" mb="md" data-testid="database-unavailable">
      <Text size="sm">svc cannot reach its database right now and is reconnecting by itself. This page refreshes when it is back.</Text>
    </Alert>
  );
}

/**
 * In place of the console when the server could not check the session for want of a database: asks
 * the server again every few seconds, so the console comes back by itself.
 */
export function DatabaseUnavailablePage() {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), PROBE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [router]);
  return (
    <Container size="sm" py="xl">
      <DatabaseUnavailableAlert />
    </Container>
  );
}
