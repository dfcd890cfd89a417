import {
  ADMIN_ROLES,
  authenticateAdminSession,
  requireRole,
  requireUnscopedAdmin,
  isAppError,
  toAppError,
  type AppErrorCode,
  type ApiKeyCache,
  type ApiKeyUseRecorder,
  type PgBoss,
  type SearchIndexTables,
} from "@svc/core";
import type { Db } from "@svc/db";
import { findJsonString, isUnstorableText, type Ok } from "@svc/schema";
import { initTRPC, TRPCError } from "@trpc/server";
import type { FetchCreateContextFnOptions } from "@trpc/server/adapters/fetch";
import superjson from "superjson";
import { z } from "zod";
import { clientAddressOf } from "../credential-throttle";
import { getServices } from "../services";
import { isHttpsRequest, isSameOriginRequest, requestHost } from "../same-origin";
import { readSessionToken } from "../session-cookie";

export interface CreateContextInnerOptions {
  db: Db;
  boss: PgBoss;
  apiKeys: ApiKeyCache;
  /** Notes each signed-in request as a use of the session's key ("last used"). */
  apiKeyUses?: ApiKeyUseRecorder;
  /** The process's search index (the same one the REST handlers use). */
  index: SearchIndexTables;
  /** Search stops after this long (SVC_SEARCH_TIMEOUT_MS). */
  searchTimeoutMs?: number;
  /** The `svc_session` cookie's value; null when the browser sent none. */
  sessionToken: string | null;
  /** `scheme://host` the browser used; an `https:` origin makes the session cookie `Secure`. */
  requestOrigin?: string;
  /** Where procedures put response headers (the session cookie); the fetch adapter sends them. */
  resHeaders?: Headers;
  /** The client's address as server.ts recorded it (sign-in throttling); absent outside the production server. */
  clientAddress?: string;
}

export interface TrpcContext {
  db: Db;
  boss: PgBoss;
  apiKeys: ApiKeyCache;
  apiKeyUses: ApiKeyUseRecorder | undefined;
  index: SearchIndexTables;
  searchTimeoutMs: number;
  sessionToken: string | null;
  /** Whether the session cookie gets `Secure` (the browser came over HTTPS). */
  secureCookies: boolean;
  resHeaders: Headers;
  clientAddress: string | undefined;
}

/**
 * Everything a procedure needs, from plain values: tests build it without any HTTP. (Async so that
 * resolving more per request later changes no caller.)
 */
export function createContextInner(options: CreateContextInnerOptions): Promise<TrpcContext> {
  return Promise.resolve({
    db: options.db,
    boss: options.boss,
    apiKeys: options.apiKeys,
    apiKeyUses: options.apiKeyUses,
    index: options.index,
    searchTimeoutMs: options.searchTimeoutMs ?? 5_000,
    sessionToken: options.sessionToken,
    secureCookies: options.requestOrigin?.startsWith("https:") ?? false,
    resHeaders: options.resHeaders ?? new Headers(),
    clientAddress: options.clientAddress,
  });
}

/** The context of a request through the fetch adapter (apps/web/app/api/trpc/[trpc]/route.ts). */
export async function createContext({ req, resHeaders }: FetchCreateContextFnOptions): Promise<TrpcContext> {
  // CSRF: every POST (all mutations, and nothing else) must come from the console's own origin.
  if (req.method === "POST" && !isSameOriginRequest(req)) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Cross-site request refused." });
  }
  const services = await getServices().catch((error: unknown) => {
    throw toTrpcError(error);
  });
  return createContextInner({
    ...services,
    sessionToken: readSessionToken(req.headers.get("cookie")),
    requestOrigin: `${isHttpsRequest(req) ? "https" : "http"}://${requestHost(req)}`,
    resHeaders,
    clientAddress: clientAddressOf(req),
  });
}

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    // No stack, ever. A message is ours (a TRPCError thrown here, an AppError, zod's issues) or else
    // internal text (a driver's error, a parser's RangeError, a path): that one becomes a fixed
    // sentence; the log has the rest (see the route's onError).
    const { stack: _stack, ...data } = shape.data;
    const cause: unknown = error.cause;
    const ownMessage = cause === undefined || cause instanceof z.ZodError || isAppError(cause);
    if (error.code === "INTERNAL_SERVER_ERROR" || !ownMessage) {
      const message = error.code === "INTERNAL_SERVER_ERROR" ? "Internal server error" : "Malformed request input";
      return { ...shape, message, data: { ...data, zodError: null } };
    }
    // Input faults carry zod's flattened issues so a form can show them next to its fields.
    const zodError = error.code === "BAD_REQUEST" && cause instanceof z.ZodError ? z.flattenError(cause) : null;
    // The table's code, finer than tRPC's: the console tells "database unavailable" from other 503s.
    const appCode: AppErrorCode | null = toAppError(cause)?.code ?? null;
    return { ...shape, data: { ...data, zodError, appCode } };
  },
});

/**
 * The console's answers carry `Retry-After` as REST's do: the longest any of a batch's errors asks
 * for (a database that does not answer: 5 s), none when no error says.
 */
export function retryAfterMeta({ errors }: { errors: readonly TRPCError[] }): { headers?: Headers } {
  const seconds = Math.max(0, ...errors.map((error) => toAppError(error.cause)?.retryAfterSeconds ?? 0));
  return seconds > 0 ? { headers: new Headers({ "retry-after": String(seconds) }) } : {};
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** The answer of a mutation whose result the console does not read: `{ ok: true }` once it is done. */
export async function acknowledge(work: Promise<unknown>): Promise<Ok> {
  await work;
  return { ok: true };
}

/**
 * Core functions throw AppError, and an unreachable database counts as one (toAppError); its tRPC
 * code comes from the one table (ERROR_CODES), as REST statuses do. Anything else stays an
 * INTERNAL_SERVER_ERROR.
 */
function toTrpcError(error: unknown): unknown {
  const appError = toAppError(error);
  return appError ? new TRPCError({ code: appError.trpcCode, message: appError.message, cause: appError }) : error;
}

const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && toAppError(result.error.cause)) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * Text that PostgreSQL cannot hold (NUL, an unpaired UTF-16 surrogate) anywhere in a procedure's
 * input is refused before any procedure sees it, with the path to it (the walk is iterative, so
 * any nesting depth is safe).
 */
const refuseUnstorableText = t.middleware(async ({ getRawInput, next }) => {
  const found = findJsonString(await getRawInput(), isUnstorableText);
  if (found) {
    const where = found.path.length > 0 ? ` (at ${found.path.map(String).join(".")})` : "";
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: `Text may not contain NUL characters or unpaired UTF-16 surrogates${where}.`,
    });
  }
  return next();
});

export const publicProcedure = t.procedure.use(mapAppErrors).use(refuseUnstorableText);

/** Any signed-in console user (an admin or curator key's session); acts with the key's role and scope. */
export const sessionProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = await authenticateAdminSession({ db: ctx.db, token: ctx.sessionToken, uses: ctx.apiKeyUses });
  return next({ ctx: { principal } });
});

/** Signed in with an admin key. */
export const adminProcedure = sessionProcedure.use(({ ctx, next }) => {
  requireRole(ctx.principal, ADMIN_ROLES);
  return next();
});

/**
 * Signed in with an admin key without pair scope: for what reaches beyond any pair (API keys), so a
 * scoped admin cannot mint itself an unscoped key.
 */
export const unscopedAdminProcedure = sessionProcedure.use(({ ctx, next }) => {
  requireUnscopedAdmin(ctx.principal);
  return next();
});
