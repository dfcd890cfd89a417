"use client";
import { Alert, Anchor, Box, Button, Center, Code, Paper, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { trpcErrorCode, useTRPC } from "../lib/trpc/client";
import { errorMessage } from "./format";

export function SignInForm({ next }: { next: string }) {
  const trpc = useTRPC();
  const [apiKey, setApiKey] = useState("");
  const signIn = useMutation(
    trpc.session.signIn.mutationOptions({
      // A full navigation, so the server renders the console with the new session cookie.
      onSuccess: () => window.location.assign(next),
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ apiKey: apiKey.trim() });
  };

  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-gray-light)">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
        <Stack gap="lg">
          <Box>
            <Text fw={800} fz="xl" c="indigo">
              svc
            </Text>
            <Title order={1} size="h3">
              Sign in to the admin console
            </Title>
            <Text c="dimmed" size="sm" mt={4}>
              Paste an <b>admin</b> or <b>curator</b> API key. It is exchanged for a session; the key itself is not kept in the browser.
            </Text>
          </Box>
          <form onSubmit={submit} aria-label="Sign in">
            <Stack gap="md">
              <PasswordInput
                label="API key"
                placeholder="svc_…"
                value={apiKey}
                onChange={(event) => setApiKey(event.currentTarget.value)}
                autoComplete="off"
                spellCheck={false}
                required
                data-autofocus
                autoFocus
              />
              {signIn.error ? (
                <Alert color="red" role="alert" title={signInErrorTitle(signIn.error)}>
                  {errorMessage(signIn.error)}
                </Alert>
              ) : null}
              <Button type="submit" loading={signIn.isPending || signIn.isSuccess} disabled={apiKey.trim() === ""} fullWidth>
                Sign in
              </Button>
            </Stack>
          </form>
          <Text size="xs" c="dimmed">
            No key yet? Create one on the server with <Code>pnpm svc keys create --name me --role admin</Code>. Back to the{" "}
            <Anchor href="/" size="xs">
              service home
            </Anchor>
            .
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}

function signInErrorTitle(error: unknown): string {
  switch (trpcErrorCode(error)) {
    case "UNAUTHORIZED":
      return "That key is not valid";
    case "FORBIDDEN":
      return "That key cannot sign in here";
    case "TOO_MANY_REQUESTS":
      return "Too many attempts";
    default:
      return "Could not sign in";
  }
}
