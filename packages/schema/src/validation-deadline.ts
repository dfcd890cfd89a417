/**
 * A deadline for one synchronous validation (docs/decisions.md "Limits and overload"). zod cannot
 * be paused, so every pydantic field checks it as it is validated, and validation past it stops by
 * throwing ValidationTimeoutError out of the parse. One deadline at a time: a parse runs to its end
 * before any other code, so module state is enough.
 */

/** The longest a request body's validation may run, a bulk call's items together (work, not waits). */
export const MAX_BODY_VALIDATION_MS = 2_000;

/** Fields validated between two readings of the clock (a reading costs more than a valid field). */
const FIELDS_PER_CLOCK_READING = 64;

/** Validation stopped at its deadline; what it checked so far says nothing about the rest. */
export class ValidationTimeoutError extends Error {
  override readonly name = "ValidationTimeoutError";

  constructor() {
    super("Validation ran past its deadline");
  }
}

let activeDeadline = Number.POSITIVE_INFINITY;
let fieldsSinceReading = 0;

/** Runs `validate` with `deadline` (a `performance.now()` time) in force; throws ValidationTimeoutError past it. */
export function validateBefore<Result>(deadline: number | undefined, validate: () => Result): Result {
  if (deadline === undefined) return validate();
  if (performance.now() > deadline) throw new ValidationTimeoutError();
  const outer = activeDeadline;
  activeDeadline = deadline;
  try {
    return validate();
  } finally {
    activeDeadline = outer;
  }
}

/** Called as each field is validated. */
export function checkValidationDeadline(): void {
  if (activeDeadline === Number.POSITIVE_INFINITY) return;
  fieldsSinceReading += 1;
  if (fieldsSinceReading < FIELDS_PER_CLOCK_READING) return;
  fieldsSinceReading = 0;
  if (performance.now() > activeDeadline) throw new ValidationTimeoutError();
}
