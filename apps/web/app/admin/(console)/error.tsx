"use client";
import { Button, Stack } from "@mantine/core";
import { PageHeader, QueryError } from "../../../components/page-parts";

/** A page that threw while rendering: say so inside the shell, with a way to try again. */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <Stack>
      <PageHeader title="Something went wrong" />
      <QueryError error={error} title="This page failed to render" />
      <Button variant="light" onClick={reset} w="fit-content">
        Try again
      </Button>
    </Stack>
  );
}
