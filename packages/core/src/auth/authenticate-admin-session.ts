import { querySql, type ApiKeyRole, type Db } from "@svc/db";
import { AppError } from "../errors/app-error";
import { hashAdminSessionToken } from "./admin-session-token";
import { hashesMatch } from "./api-key-secret";
import { CONNECTOR_ROLES, type Principal } from "./principal";
import type { ApiKeyUseRecorder } from "./record-api-key-use";

/**
 * Resolves a console session token to the principal of the key it was opened with, or throws
 * UNAUTHENTICATED: no token, an unknown, expired or ended session, or a key revoked since. The key
 * is read on every request (no cache), so revoking it ends its sessions at once in every process.
 */
export async function authenticateAdminSession({
  db,
  token,
  now = new Date(),
  uses,
}: {
  db: Db;
  token: string | null | undefined;
  now?: Date;
  /** A console session acts with its key: its requests are the key's use. */
  uses?: ApiKeyUseRecorder;
}): Promise<Principal> {
  if (!token) throw new AppError("UNAUTHENTICATED", "Not signed in.");
  const hashedToken = hashAdminSessionToken(token);
  const [session] = await querySql<{
    hashed_token: string;
    api_key_id: number;
    name: string;
    role: ApiKeyRole;
    scope: number[];
  }>(db, {
    name: "svc-authenticate-admin-session",
    text: `SELECT s.hashed_token, k.id AS api_key_id, k.name, k.role::text AS role,
       COALESCE(array_agg(sc.cc_pair_id ORDER BY sc.cc_pair_id) FILTER (WHERE sc.cc_pair_id IS NOT NULL), '{}') AS scope
     FROM admin_session s
     JOIN api_key k ON k.id = s.api_key_id
     LEFT JOIN api_key_scope sc ON sc.api_key_id = k.id
     WHERE s.hashed_token = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND k.revoked_at IS NULL
     GROUP BY s.hashed_token, k.id`,
    values: [hashedToken, now],
  });
  if (!session || !hashesMatch(session.hashed_token, hashedToken)) {
    throw new AppError("UNAUTHENTICATED", "The session has ended: sign in again.");
  }
  // A key's role can only be set at creation, but a session must never outlive the sign-in rule.
  if (!CONNECTOR_ROLES.includes(session.role)) throw new AppError("FORBIDDEN", "The console is for admin and curator keys.");
  uses?.record(session.api_key_id);
  return {
    apiKeyId: session.api_key_id,
    name: session.name,
    role: session.role,
    scopeCcPairIds: session.scope.length > 0 ? session.scope : null,
  };
}
