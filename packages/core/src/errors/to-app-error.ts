import { isDatabaseUnavailable, isQueryCanceled } from "@svc/db";
import { AppError, isAppError } from "./app-error";

/**
 * The AppError a transport answers with for `error`: the error itself when it is one, and
 * DATABASE_UNAVAILABLE for any failure to reach the database (whatever layer threw it: Prisma, pg,
 * pg-boss), and QUERY_TIMEOUT for a statement the database cancelled (its statement timeout fired,
 * or the client went away and svc cancelled it). Undefined for anything else, which stays a bug (500).
 */
export function toAppError(error: unknown): AppError | undefined {
  if (isAppError(error)) return error;
  if (isDatabaseUnavailable(error)) return new AppError("DATABASE_UNAVAILABLE", "Database unavailable");
  if (isQueryCanceled(error)) return new AppError("QUERY_TIMEOUT", "The request took too long; narrow it or try again later");
  return undefined;
}
