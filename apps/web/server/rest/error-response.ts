import { toAppError } from "@svc/core";
import { boundValidationErrorBody, HTTPValidationErrorSchema } from "@svc/schema";
import { webLogger } from "../observability/web-logger";

/**
 * A failure of the HTTP transport itself, not of an operation (unknown path, wrong method, a body
 * that stops arriving): the dispatcher answers it with its status and `{"detail": …}`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** `{"detail": …}` with a status, the shape of every error other than a 422. */
export function detailResponse(status: number, detail: string, headers: Record<string, string> = {}): Response {
  return Response.json({ detail }, { status, headers });
}

/** The one mapping from a thrown error to a response; anything unexpected is a 500 without its text. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) return detailResponse(error.status, error.detail, error.headers);
  // An unreachable database counts as an AppError too (503 with Retry-After).
  const appError = toAppError(error);
  if (appError) {
    const headers: Record<string, string> = appError.code === "UNAUTHENTICATED" ? { "WWW-Authenticate": "Bearer" } : {};
    if (appError.retryAfterSeconds !== undefined) headers["Retry-After"] = String(appError.retryAfterSeconds);
    const body = appError.code === "VALIDATION_FAILED" ? boundedBody(appError.toResponseBody()) : appError.toResponseBody();
    return Response.json(body, { status: appError.httpStatus, headers });
  }
  webLogger().error({ err: error }, "unhandled error");
  return Response.json({ detail: "Internal server error" }, { status: 500 });
}

/** A 422 body is bounded whoever built it (the schemas, or core for an unknown file id per section). */
function boundedBody(body: unknown): unknown {
  const validation = HTTPValidationErrorSchema.safeParse(body);
  return validation.success && validation.data.detail ? boundValidationErrorBody({ detail: validation.data.detail }) : body;
}
