import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every key starts with this, so a leaked key is recognisable (and greppable) as an svc key. */
export const API_KEY_PREFIX = "svc_";
const KEY_RANDOM_BYTES = 32;
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export interface GeneratedApiKey {
  key: string;
  hashedKey: string;
  displayPrefix: string;
}

export function generateApiKeySecret(): GeneratedApiKey {
  const key = API_KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString("base64url");
  return { key, hashedKey: hashApiKey(key), displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Compares two hex digests without leaking, through timing, how much of them matched. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
