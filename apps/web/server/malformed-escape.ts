/**
 * Whether a path holds a percent sign that does not start a valid escape, or escapes that are not
 * UTF-8: such a path is answered 400 before any route sees it (the routes' decoders would throw).
 */
export function hasMalformedEscape(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}
