import type { Db } from "@svc/db";
import { insertAdminSession } from "./admin-session-rows";
import { generateAdminSessionToken } from "./admin-session-token";
import type { ApiKeyCache } from "./api-key-cache";
import { authenticateApiKeySecret } from "./authenticate-api-key";
import { CONNECTOR_ROLES, requireRole, type Principal } from "./principal";
import type { ApiKeyUseRecorder } from "./record-api-key-use";

/** How long a console session lasts unless the caller says otherwise. */
export const DEFAULT_ADMIN_SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * Signs in to the admin console with a pasted API key: the key is authenticated exactly as a REST
 * bearer key is (401 unknown or revoked), only admin and curator keys may open a session (403), and
 * the session row stores the SHA-256 of a random token that only the browser's cookie holds.
 */
export async function createAdminSession({
  db,
  apiKey,
  cache,
  uses,
  lifetimeMs = DEFAULT_ADMIN_SESSION_LIFETIME_MS,
  now = new Date(),
}: {
  db: Db;
  apiKey: string;
  cache?: ApiKeyCache;
  uses?: ApiKeyUseRecorder;
  lifetimeMs?: number;
  now?: Date;
}): Promise<{ token: string; expiresAt: Date; lifetimeSeconds: number; principal: Principal }> {
  const principal = await authenticateApiKeySecret({ db, key: apiKey, cache, uses });
  requireRole(principal, CONNECTOR_ROLES);
  const { token, hashedToken } = generateAdminSessionToken();
  const expiresAt = new Date(now.getTime() + lifetimeMs);
  await insertAdminSession(db, { hashedToken, apiKeyId: principal.apiKeyId, createdAt: now, expiresAt });
  return { token, expiresAt, lifetimeSeconds: Math.floor(lifetimeMs / 1000), principal };
}
