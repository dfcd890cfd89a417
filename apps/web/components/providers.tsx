"use client";
import { MantineProvider } from "@mantine/core";
import { QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { TRPCProvider, createConsoleQueryClient, createConsoleTrpcClient } from "../lib/trpc/client";
import { DatabaseAvailableContext } from "./database-status";
import { consoleTheme } from "./theme";

/** Mantine, React Query and tRPC for the admin console; one client pair per browser tab. */
export function Providers({ children }: { children: ReactNode }) {
  const [databaseAvailable, setDatabaseAvailable] = useState(true);
  const [queryClient] = useState(() => createConsoleQueryClient({ onSignedOut: goToSignIn, onDatabaseAvailable: setDatabaseAvailable }));
  const [trpcClient] = useState(createConsoleTrpcClient);
  return (
    <MantineProvider theme={consoleTheme}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <DatabaseAvailableContext.Provider value={databaseAvailable}>{children}</DatabaseAvailableContext.Provider>
        </TRPCProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}

/** A session that ended turns every query into a 401: sign in again rather than show errors everywhere. */
function goToSignIn(): void {
  const { pathname, search } = window.location;
  if (pathname.startsWith("/admin/sign-in")) return;
  window.location.assign(`/admin/sign-in?next=${encodeURIComponent(pathname + search)}`);
}
