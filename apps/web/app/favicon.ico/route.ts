/**
 * Browsers ask for /favicon.ico on their own when a page names no icon (a JSON answer opened in a
 * tab, say): it is svc's icon, the one every page names (app/icon.svg), not a 404.
 */
export function GET(request: Request): Response {
  return Response.redirect(new URL("/icon.svg", request.url), 308);
}
