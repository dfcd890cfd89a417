/** The image types an ImageSection may reference, recognised by their first bytes, never by name. */
const SIGNATURES: { mimeType: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { mimeType: "image/png", matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mimeType: "image/jpeg", matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { mimeType: "image/gif", matches: (b) => ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a" },
  { mimeType: "image/webp", matches: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP" },
];

export const ACCEPTED_IMAGE_TYPES = SIGNATURES.map((signature) => signature.mimeType);

export function detectImageType(bytes: Uint8Array): string | null {
  return SIGNATURES.find((signature) => signature.matches(bytes))?.mimeType ?? null;
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return bytes.length < end ? "" : String.fromCharCode(...bytes.subarray(start, end));
}
