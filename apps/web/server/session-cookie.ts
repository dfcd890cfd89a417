/** The console's session cookie: the random token whose SHA-256 keys the admin_session row. */
export const SESSION_COOKIE_NAME = "svc_session";

/**
 * HttpOnly keeps the token away from scripts; SameSite=Strict keeps the browser from sending it on
 * any cross-site request (the first CSRF defence; the Origin check is the second). Secure only over
 * HTTPS, or the cookie would never come back from a plain-HTTP deployment (e.g. localhost).
 */
export function sessionCookie({ token, maxAgeSeconds, secure }: { token: string; maxAgeSeconds: number; secure: boolean }): string {
  const attributes = [`${SESSION_COOKIE_NAME}=${token}`, "Path=/", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Strict"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** Tells the browser to drop the cookie (same attributes, expired). */
export function clearedSessionCookie({ secure }: { secure: boolean }): string {
  return sessionCookie({ token: "", maxAgeSeconds: 0, secure });
}

/** The session token from a `Cookie` header, if any. */
export function readSessionToken(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === SESSION_COOKIE_NAME) {
      const value = part.slice(separator + 1).trim();
      return value.length > 0 ? value : null;
    }
  }
  return null;
}
