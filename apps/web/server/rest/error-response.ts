import { isAppError } from "@svc/core";

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
  if (isAppError(error)) {
    const headers: HeadersInit = error.code === "UNAUTHENTICATED" ? { "WWW-Authenticate": "Bearer" } : {};
    return Response.json(error.toResponseBody(), { status: error.httpStatus, headers });
  }
  console.error("[svc] unhandled error", error);
  return Response.json({ detail: "Internal server error" }, { status: 500 });
}
