"use client";
import { TextInput, type TextInputProps } from "@mantine/core";

/** A text input that hands its owner the text rather than the event: every console form keeps the text in state. */
export function TextField({ onValueChange, ...props }: Omit<TextInputProps, "onChange"> & { onValueChange: (value: string) => void }) {
  return <TextInput {...props} onChange={(event) => onValueChange(event.currentTarget.value)} />;
}
