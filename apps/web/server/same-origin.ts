/**
 * CSRF defence for the cookie-authenticated endpoints (tRPC, the console's upload): a state-changing
 * request must come from the console's own origin. A browser that sends `Sec-Fetch-Site` (every
 * current one; a page cannot set or forge it) is taken at its word: `same-origin`, or `none` for a
 * request the user made directly. Otherwise the `Origin` header must name the origin the request was
 * sent to: the same scheme, host and port (an `http:` page of the same host is another origin). A
 * request with neither header is refused: it is not from a page of ours.
 */
export function isSameOriginRequest(request: Request): boolean {
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite !== null) return fetchSite === "same-origin" || fetchSite === "none";
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return false;
  try {
    // URL normalizes both: case, and a default port written out (`:443` on https).
    const from = new URL(origin);
    const to = new URL(`${isHttpsRequest(request) ? "https" : "http"}://${requestHost(request)}`);
    return from.protocol === to.protocol && from.host === to.host;
  } catch {
    return false;
  }
}

/** The host the browser addressed: a proxy's `X-Forwarded-Host`, else `Host`, else the URL's. */
export function requestHost(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  return forwarded || request.headers.get("host") || new URL(request.url).host;
}

/** Whether the browser reached us over HTTPS (directly, or through a TLS-terminating proxy). */
export function isHttpsRequest(request: Request): boolean {
  const forwarded = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return new URL(request.url).protocol === "https:";
}
