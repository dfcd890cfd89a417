import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { toAppError, type AppError } from "@svc/core";
import { pingDatabase } from "@svc/db";
import { webLogger } from "./observability/web-logger";
import { getServices } from "./services";

const CONSOLE_ROOT = "/admin";

/**
 * Whether a request loads a console page in a browser: GET or HEAD of a path under /admin, not the
 * RSC payload of a client-side navigation or prefetch (a page already open, whose failing calls
 * show the console's own "Database unavailable" banner). Assets (/_next/…) and the API are not under /admin.
 */
export function isConsolePageLoad(method: string | undefined, pathname: string, headers: IncomingHttpHeaders): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  if (pathname !== CONSOLE_ROOT && !pathname.startsWith(`${CONSOLE_ROOT}/`)) return false;
  return headers.rsc !== "1";
}

/**
 * Why a console page cannot be rendered now: DATABASE_UNAVAILABLE while the database does not answer
 * one `SELECT 1` (at once while the pool's breaker is open, within the pool's deadlines otherwise,
 * decisions.md "Limits and overload"); undefined when it answers. Any other failure is logged and
 * left to the page, which renders it as it would.
 */
export async function checkDatabaseForPage(): Promise<AppError | undefined> {
  try {
    await pingDatabase((await getServices()).db);
    return undefined;
  } catch (error) {
    const appError = toAppError(error);
    if (appError?.code === "DATABASE_UNAVAILABLE") return appError;
    webLogger().error({ err: error }, "console page database check failed");
    return undefined;
  }
}

/**
 * The console's answer while its database does not answer: the 503 and Retry-After the API gives,
 * and a small page that says what is wrong and reloads itself as often (the security headers are
 * server.ts's, as on every answer). A page already open keeps its banner instead.
 */
export function sendDatabaseUnavailablePage(outgoing: ServerResponse, unavailable: AppError): void {
  const retryAfter = String(unavailable.retryAfterSeconds ?? 5);
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${retryAfter}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Database unavailable · svc admin</title>
<style>body{font-family:system-ui,sans-serif;line-height:1.5;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>
</head>
<body>
<main role="alert" data-testid="database-unavailable">
<h1>Database unavailable</h1>
<p>svc cannot reach its database right now and is reconnecting by itself. This page reloads itself every ${retryAfter} seconds and shows the console once the database is back.</p>
</main>
</body>
</html>
`;
  outgoing.writeHead(unavailable.httpStatus, {
    "content-type": "text/html; charset=utf-8",
    "content-length": String(Buffer.byteLength(page)),
    "cache-control": "no-store",
    "retry-after": retryAfter,
  });
  outgoing.end(page);
}
