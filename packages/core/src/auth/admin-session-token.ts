import { createHash, randomBytes } from "node:crypto";

const SESSION_TOKEN_BYTES = 32;

/** A fresh session token for the browser; only its hash is stored (as for API keys). */
export function generateAdminSessionToken(): { token: string; hashedToken: string } {
  const token = randomBytes(SESSION_TOKEN_BYTES).toString("base64url");
  return { token, hashedToken: hashAdminSessionToken(token) };
}

export function hashAdminSessionToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
