// The one place that decides whether a failure means "the database cannot be reached right now" (it
// restarts, is down, refuses connections) rather than a fault of the statement. Transports answer
// those with 503 and Retry-After instead of a 500; nothing else should look at these codes.
import { isStalledError } from "./guard-database";

/** Socket-level failures of reaching the server. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * SQLSTATEs of a server going away or not taking connections: admin_shutdown (a fast shutdown or a
 * restart), crash_shutdown, cannot_connect_now (starting up, shutting down, in recovery),
 * too_many_connections. Class 08 (connection exception) is matched as a class.
 */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** The kinds @prisma/adapter-pg gives a driver error it recognises as a connection failure. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "DatabaseDoesNotExist", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);

/** Prisma's own codes for an unreachable server, a connect timeout and a closed connection. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1017"]);

/** pg's messages for a connection that died under it; these errors carry no code. */
const PG_LOST_CONNECTION = /^Connection terminated|Client has encountered a connection error|Client was closed and is not queryable/;

/**
 * Whether `error` (from pg, pg-boss or Prisma, possibly wrapped in `cause`s or an AggregateError) says
 * the database is unreachable. Follows causes a few levels deep; never throws.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  const { code, message, cause, errors, meta } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
    meta?: { driverAdapterError?: { cause?: unknown } };
  };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith("08") || PRISMA_CODES.has(code))) {
    return true;
  }
  if (typeof message === "string" && PG_LOST_CONNECTION.test(message)) return true;
  // A client-side deadline (checkout, handshake, statement) passed, or the pool fails fast meanwhile.
  if (isStalledError(error)) return true;
  const adapterCause = meta?.driverAdapterError?.cause ?? (isDriverAdapterError(error) ? cause : undefined);
  if (isUnavailableAdapterCause(adapterCause)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

function isDriverAdapterError(error: object): boolean {
  return (error as { name?: unknown }).name === "DriverAdapterError";
}

/** A driver adapter error's cause: `{ kind }`, or `{ kind: "postgres", code }` for a server error. */
function isUnavailableAdapterCause(cause: unknown): boolean {
  if (typeof cause !== "object" || cause === null) return false;
  const { kind, code } = cause as { kind?: unknown; code?: unknown };
  if (typeof kind === "string" && ADAPTER_KINDS.has(kind)) return true;
  return kind === "postgres" && typeof code === "string" && (SERVER_CODES.has(code) || code.startsWith("08"));
}

/**
 * SQLSTATE query_canceled: a statement stopped by `statement_timeout` or by a cancel request (the
 * client that asked for it went away). Not a fault of the statement nor an outage: transports answer
 * 503 with Retry-After.
 */
export const QUERY_CANCELED = "57014";

/** Whether `error` (from pg or Prisma, possibly wrapped in `cause`s) is a cancelled statement. */
export function isQueryCanceled(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  const { code, cause, meta } = error as { code?: unknown; cause?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: unknown } } };
  if (code === QUERY_CANCELED || meta?.code === QUERY_CANCELED) return true;
  const adapterCause = meta?.driverAdapterError?.cause ?? (isDriverAdapterError(error) ? cause : undefined);
  if (typeof adapterCause === "object" && adapterCause !== null && (adapterCause as { code?: unknown }).code === QUERY_CANCELED) return true;
  return isQueryCanceled(cause, depth + 1);
}
