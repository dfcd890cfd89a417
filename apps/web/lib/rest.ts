import {
  AppError,
  authenticateApiKey,
  requireRole,
  toAppError,
  type Principal,
} from "@svc/core";
import type { ApiKeyRole } from "@svc/db";
import { parseJsonBody, stripNulCharacters, validateBody } from "@svc/schema";
import type { z } from "zod";
import { getServices, type Services } from "./services";

export interface RestContext<Params> {
  request: Request;
  principal: Principal;
  services: Services;
  params: Params;
}

/**
 * Wraps a REST route handler: bearer authentication and role check first (before the body is
 * read), then the handler, then one mapping from errors to responses. Handlers return a JSON value
 * or a Response.
 */
export function restRoute<Params = Record<string, never>>(
  roles: readonly ApiKeyRole[],
  handler: (context: RestContext<Params>) => Promise<unknown>,
) {
  return async (request: Request, routeContext: { params: Promise<Params> }): Promise<Response> => {
    try {
      const services = await getServices();
      const principal = await authenticateApiKey({
        db: services.db,
        authorization: request.headers.get("authorization"),
        cache: services.apiKeys,
      });
      requireRole(principal, roles);
      const result = await handler({ request, principal, services, params: await routeContext.params });
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

export function errorResponse(error: unknown): Response {
  const appError = toAppError(error);
  if (appError) {
    const headers: Record<string, string> = appError.code === "UNAUTHENTICATED" ? { "WWW-Authenticate": "Bearer" } : {};
    if (appError.retryAfterSeconds !== undefined) headers["Retry-After"] = String(appError.retryAfterSeconds);
    return Response.json(appError.toResponseBody(), { status: appError.httpStatus, headers });
  }
  console.error("[svc] unhandled error", error);
  return Response.json({ detail: "Internal server error" }, { status: 500 });
}

/**
 * Reads a JSON body of at most `limitBytes`, strips NUL characters, and validates it. With
 * `emptyBody`, a request without a body counts as that value (for endpoints whose body is optional).
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  limitBytes: number,
  { emptyBody }: { emptyBody?: unknown } = {},
): Promise<z.output<Schema>> {
  const text = new TextDecoder().decode(await readBodyBytes(request, limitBytes));
  if (text === "" && emptyBody !== undefined) return validateOrThrow(schema, emptyBody, "body");
  const parsed = parseJsonBody(text);
  if (!parsed.ok) throw new AppError("VALIDATION_FAILED", "Malformed request body", parsed.body);
  return validateOrThrow(schema, stripNulCharacters(parsed.value), "body");
}

/** Validates path parameters the way FastAPI does: a fault is a 422 item at `["path", <name>]`. */
export function readPathParams<Schema extends z.ZodType>(params: unknown, schema: Schema): z.output<Schema> {
  return validateOrThrow(schema, params, "path");
}

/**
 * Validates the query string the way FastAPI does: a fault is a 422 item at `["query", <name>]`. A
 * parameter given twice counts with its last value; unknown parameters are ignored.
 */
export function readQueryParams<Schema extends z.ZodType>(request: Request, schema: Schema): z.output<Schema> {
  return validateOrThrow(schema, Object.fromEntries(new URL(request.url).searchParams), "query");
}

/** One request part (body, path or query) against its schema; faults become the FastAPI-shaped 422. */
function validateOrThrow<Schema extends z.ZodType>(schema: Schema, value: unknown, part: "body" | "path" | "query"): z.output<Schema> {
  const validated = validateBody(schema, value, { locPrefix: [part] });
  if (!validated.ok) throw new AppError("VALIDATION_FAILED", `Invalid request ${part}`, validated.body);
  return validated.data;
}

/** The raw body, refused with 413 as soon as it is known to exceed the limit. */
export async function readBodyBytes(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) throw bodyTooLarge(limitBytes);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel();
      throw bodyTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function bodyTooLarge(limitBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than the limit of ${limitBytes} bytes.`);
}
