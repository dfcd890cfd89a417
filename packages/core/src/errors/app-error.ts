/**
 * The one error type of the domain. Core functions throw it; every transport (REST, tRPC, jobs)
 * maps `code` through ERROR_CODES and never invents a status of its own.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { httpStatus: 400, trpcCode: "BAD_REQUEST" },
  UNAUTHENTICATED: { httpStatus: 401, trpcCode: "UNAUTHORIZED" },
  FORBIDDEN: { httpStatus: 403, trpcCode: "FORBIDDEN" },
  NOT_FOUND: { httpStatus: 404, trpcCode: "NOT_FOUND" },
  CONFLICT: { httpStatus: 409, trpcCode: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, trpcCode: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { httpStatus: 415, trpcCode: "UNSUPPORTED_MEDIA_TYPE" },
  VALIDATION_FAILED: { httpStatus: 422, trpcCode: "UNPROCESSABLE_CONTENT" },
  /** This web process already holds SVC_MAX_EVENT_STREAMS open event streams (docs/decisions.md "Events"). */
  TOO_MANY_STREAMS: { httpStatus: 429, trpcCode: "TOO_MANY_REQUESTS", retryAfterSeconds: 5 },
  UNAVAILABLE: { httpStatus: 503, trpcCode: "SERVICE_UNAVAILABLE" },
  /** The database cannot be reached (down, restarting); svc reconnects by itself. */
  DATABASE_UNAVAILABLE: { httpStatus: 503, trpcCode: "SERVICE_UNAVAILABLE", retryAfterSeconds: 5 },
  /** A statement ran past the web process's statement timeout (SVC_STATEMENT_TIMEOUT_MS), or was cancelled. */
  QUERY_TIMEOUT: { httpStatus: 503, trpcCode: "SERVICE_UNAVAILABLE", retryAfterSeconds: 1 },
  /** A search ran past SVC_SEARCH_TIMEOUT_MS (decisions: "Limits and overload"). */
  SEARCH_TIMEOUT: { httpStatus: 503, trpcCode: "SERVICE_UNAVAILABLE", retryAfterSeconds: 1 },
  INTERNAL: { httpStatus: 500, trpcCode: "INTERNAL_SERVER_ERROR" },
} as const satisfies Record<string, { httpStatus: number; trpcCode: string; retryAfterSeconds?: number }>;

export type AppErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  override readonly name = "AppError";

  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** A wire body that replaces the default `{"detail": message}` (the pydantic-shaped 422). */
    readonly body?: unknown,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].httpStatus;
  }

  /** Seconds a client should wait before trying again (the `Retry-After` header), for codes that say. */
  get retryAfterSeconds(): number | undefined {
    const entry = ERROR_CODES[this.code];
    return "retryAfterSeconds" in entry ? entry.retryAfterSeconds : undefined;
  }

  /** What a tRPC client receives as `error.data.code` (the admin console). */
  get trpcCode(): (typeof ERROR_CODES)[AppErrorCode]["trpcCode"] {
    return ERROR_CODES[this.code].trpcCode;
  }

  /** What a REST client receives. */
  toResponseBody(): unknown {
    return this.body ?? { detail: this.message };
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
