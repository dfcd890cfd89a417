"use client";
import { Alert, Button, Code, CopyButton, Group, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** A secret the server answers once (a new API key, a webhook's signing secret): shown with a copy button until dismissed. */
export function ShownOnce({
  title,
  value,
  copyLabel,
  testId,
  onDismiss,
  children,
}: {
  title: string;
  value: string;
  copyLabel: string;
  testId: string;
  onDismiss: () => void;
  children?: ReactNode;
}) {
  return (
    <Alert color="green" variant="light" title={title} role="status">
      <Stack gap="xs">
        <Text size="sm">Copy it now: it is shown only this once.{children ? <> {children}</> : null}</Text>
        <Code block data-testid={testId} style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
          {value}
        </Code>
        <Group gap="xs">
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" color={copied ? "teal" : "indigo"} onClick={copy}>
                {copied ? "Copied" : copyLabel}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="subtle" onClick={onDismiss}>
            Done
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
