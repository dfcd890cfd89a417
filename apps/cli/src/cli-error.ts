import { InvalidArgumentError } from "commander";

/** The command line was wrong (exit 2), as opposed to a command that ran and failed (exit 1). */
export class UsageError extends Error {}

/** A commander argument parser: ids and counts are positive integers, refused as usage errors. */
export function parsePositiveInt(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`Not a positive integer: "${text}".`);
  return value;
}
