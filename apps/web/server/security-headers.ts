import type { ServerResponse } from "node:http";

/**
 * Headers every answer of the production server carries, console pages and API answers alike
 * (server.ts adds them as each answer's head is written; a handler's own value wins, as /api/docs's
 * CSP, which adds Scalar's workers, and the uploaded files' sandbox do). The console's pages are Next.js pages whose inline bootstrap scripts carry no
 * nonce, hence 'unsafe-inline' for scripts and styles; everything else is this origin only, and no
 * other page may frame the console (a framed, signed-in console could be clicked through).
 */
const DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/** The policy, with a page's own extra directives. */
export function contentSecurityPolicy(extra: readonly string[] = []): string {
  return [...DIRECTIVES, ...extra].join("; ");
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};


/**
 * Adds each of SECURITY_HEADERS the answer does not already carry when its head is written (an
 * implicit head too: Node writes it through writeHead). Set any earlier, they would shadow a Next.js
 * route handler's own value: Next adds a handler's header only when none of that name is set.
 */
export function addSecurityHeadersOnWrite(outgoing: ServerResponse): void {
  const writeHead = outgoing.writeHead.bind(outgoing) as (...args: unknown[]) => ServerResponse;
  outgoing.writeHead = (...args: unknown[]) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!outgoing.hasHeader(name)) outgoing.setHeader(name, value);
    return writeHead(...args);
  };
}
