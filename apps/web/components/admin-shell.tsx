"use client";
import { ActionIcon, AppShell, Badge, Burger, Button, Group, NavLink, Stack, Text, Tooltip, useMantineColorScheme } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation } from "@tanstack/react-query";
import { accessRuleOf, canEditPair as ruleMayEditPair, isUnscopedAdmin } from "@svc/core/access-policy";
import type { SessionUser } from "@svc/schema";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { createContext, useContext, type ReactNode } from "react";
import { useTRPC } from "../lib/trpc/client";
import { DatabaseUnavailableBanner } from "./database-status";
import { RoleBadge } from "./status-badge";

const ConsoleUserContext = createContext<SessionUser | null>(null);

/** The signed-in user, inside the console's pages (the shell provides it from the server's session check). */
export function useConsoleUser(): SessionUser {
  const user = useContext(ConsoleUserContext);
  if (!user) throw new Error("useConsoleUser outside the admin shell");
  return user;
}

/** Whether the user may change the pair: the server's rule (core's access policy), to grey out buttons. */
export function canEditPair(user: SessionUser, ccPairId: number): boolean {
  return ruleMayEditPair(accessRuleOf(user), ccPairId);
}

const NAVIGATION: { href: string; label: string; description: string; adminOnly?: boolean; unscopedAdminOnly?: boolean }[] = [
  { href: "/admin/connectors", label: "Connectors", description: "Pairs and their indexing status" },
  { href: "/admin/documents", label: "Documents", description: "Search the index, inspect documents" },
  { href: "/admin/health", label: "Indexing health", description: "Queue, throughput, failures, rebuilds" },
  // A scoped admin may not mint keys (it could mint an unscoped one).
  { href: "/admin/keys", label: "API keys", description: "Create and revoke keys", unscopedAdminOnly: true },
  { href: "/admin/uploads", label: "Uploads", description: "Images for image sections" },
  // Admin keys only, as the REST routes; a scoped admin sees its own pairs' endpoints.
  { href: "/admin/webhooks", label: "Webhooks", description: "Endpoints, deliveries, resends", adminOnly: true },
];

function showsItem(user: SessionUser, item: (typeof NAVIGATION)[number]): boolean {
  if (item.unscopedAdminOnly) return isUnscopedAdmin(user);
  return !item.adminOnly || user.role === "admin";
}

/** The console's frame: header with who is signed in, navigation, and the page. */
export function AdminShell({ user, children }: { user: SessionUser; children: ReactNode }) {
  const [navOpened, { toggle: toggleNav, close: closeNav }] = useDisclosure(false);
  const pathname = usePathname();
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.session.signOut.mutationOptions({
      // A full navigation drops every cached query of the ended session.
      onSettled: () => window.location.assign("/admin/sign-in"),
    }),
  );

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: "sm", collapsed: { mobile: !navOpened } }} padding="lg">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={navOpened} onClick={toggleNav} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Text component={Link} href="/admin/connectors" fw={800} fz="lg" c="indigo">
              svc
            </Text>
            <Text c="dimmed" size="sm" visibleFrom="xs">
              admin console
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Group gap={6} wrap="nowrap" aria-label="Signed in as">
              {/* On a phone the name gives way to the buttons; the role stays. */}
              <Text size="sm" fw={600} data-testid="session-name" visibleFrom="sm">
                {user.name}
              </Text>
              <RoleBadge role={user.role} />
              {user.scopeCcPairIds ? (
                <Tooltip label={`Limited to pairs ${user.scopeCcPairIds.join(", ")} and public ones`}>
                  <Badge variant="outline" color="gray">
                    scoped
                  </Badge>
                </Tooltip>
              ) : null}
            </Group>
            <ColorSchemeToggle />
            <Button variant="default" size="xs" onClick={() => signOut.mutate()} loading={signOut.isPending}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Console sections">
        <Stack gap={4} component="nav">
          {NAVIGATION.filter((item) => showsItem(user, item)).map((item) => (
            <NavLink
              key={item.href}
              component={Link}
              href={item.href}
              label={item.label}
              description={item.description}
              active={pathname === item.href || pathname.startsWith(`${item.href}/`)}
              aria-current={pathname === item.href ? "page" : undefined}
              onClick={closeNav}
              variant="light"
            />
          ))}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main bg="var(--mantine-color-body)">
        <DatabaseUnavailableBanner />
        <ConsoleUserContext.Provider value={user}>{children}</ConsoleUserContext.Provider>
      </AppShell.Main>
    </AppShell>
  );
}

function ColorSchemeToggle() {
  const { toggleColorScheme } = useMantineColorScheme();
  return (
    <ActionIcon variant="default" size="lg" onClick={toggleColorScheme} aria-label="Switch between light and dark">
      <Text component="span" lightHidden aria-hidden>
        ☀
      </Text>
      <Text component="span" darkHidden aria-hidden>
        ☾
      </Text>
    </ActionIcon>
  );
}
