/**
 * The cursor of a document listing: the last document id of a page, as base64url of its UTF-8
 * bytes without padding. Clients treat it as opaque; the service reads the id back from it.
 */
export function encodeDocumentCursor(lastId: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(lastId)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The id a cursor stands for; null for anything `encodeDocumentCursor` cannot have produced from a
 * stored id (those never hold NUL, which PostgreSQL would refuse as a parameter).
 */
export function decodeDocumentCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor) || cursor.length % 4 === 1) return null;
  const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  let id: string;
  try {
    id = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
  // atob forgives stray low bits; only the one canonical spelling of an id is a cursor.
  return encodeDocumentCursor(id) === cursor && !id.includes("\u0000") ? id : null;
}
