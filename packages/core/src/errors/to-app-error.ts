import { isDatabaseUnavailable } from "@svc/db";
import { AppError, isAppError } from "./app-error";

/**
 * The AppError a transport answers with for `error`: the error itself when it is one, and
 * DATABASE_UNAVAILABLE for any failure to reach the database (whatever layer threw it: Prisma, pg,
 * pg-boss). Undefined for anything else, which stays a bug (500).
 */
export function toAppError(error: unknown): AppError | undefined {
  if (isAppError(error)) return error;
  if (isDatabaseUnavailable(error)) return new AppError("DATABASE_UNAVAILABLE", "Database unavailable");
  return undefined;
}
