"use client";
import { Button, Group, Modal, Stack, Text, type ButtonProps } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useState, type ReactNode } from "react";
import { ErrorAlert } from "./page-parts";

/**
 * A button that asks before it acts: the modal names what will happen, the confirm button runs
 * `onConfirm` and stays open with the error if it fails.
 */
export function ConfirmAction({
  label,
  title,
  children,
  confirmLabel,
  onConfirm,
  color = "red",
  buttonProps,
  disabled,
}: {
  label: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  color?: string;
  buttonProps?: ButtonProps & { "aria-label"?: string };
  disabled?: boolean;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  const { pending, error, run, reset } = useAsyncAction();

  const confirm = async () => {
    if (await run(onConfirm)) close();
  };

  return (
    <>
      <Button
        color={color}
        variant="light"
        onClick={() => {
          reset();
          open();
        }}
        disabled={disabled}
        {...buttonProps}
      >
        {label}
      </Button>
      <Modal opened={opened} onClose={close} title={<Text fw={700}>{title}</Text>} centered>
        <Stack>
          <Text size="sm" component="div">
            {children}
          </Text>
          <ErrorAlert error={error} />
          <DialogButtons onCancel={close} pending={pending} color={color} onConfirm={() => void confirm()} autoFocus>
            {confirmLabel}
          </DialogButtons>
        </Stack>
      </Modal>
    </>
  );
}

/** Runs an async action for a dialog: pending while it runs, its error kept for an Alert. */
export function useAsyncAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setPending(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setPending(false);
    }
  };
  return { pending, error, run, reset: () => setError(null) };
}

/**
 * A dialog's Cancel and confirm buttons. Without `onConfirm` the confirm button submits the
 * dialog's form.
 */
export function DialogButtons({
  children,
  onCancel,
  onConfirm,
  pending,
  disabled,
  color,
  autoFocus,
}: {
  children: ReactNode;
  onCancel: () => void;
  onConfirm?: () => void;
  pending: boolean;
  disabled?: boolean;
  color?: string;
  autoFocus?: boolean;
}) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel} disabled={pending}>
        Cancel
      </Button>
      <Button
        type={onConfirm ? "button" : "submit"}
        color={color}
        loading={pending}
        disabled={disabled}
        onClick={onConfirm}
        data-autofocus={autoFocus || undefined}
      >
        {children}
      </Button>
    </Group>
  );
}
