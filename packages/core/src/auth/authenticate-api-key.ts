import { querySql, type ApiKeyRole, type Db } from "@svc/db";
import { AppError } from "../errors/app-error";
import type { ApiKeyCache } from "./api-key-cache";
import { hashApiKey, hashesMatch } from "./api-key-secret";
import type { Principal } from "./principal";
import type { ApiKeyUseRecorder } from "./record-api-key-use";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Resolves an `Authorization` header to a principal, or throws UNAUTHENTICATED. */
export async function authenticateApiKey({
  db,
  authorization,
  cache,
  uses,
}: {
  db: Db;
  authorization: string | null | undefined;
  /** Saves the round trip for keys seen recently; see ApiKeyCache for why that stays correct. */
  cache?: ApiKeyCache;
  /** Notes the key's use for its "last used" (cached or not). */
  uses?: ApiKeyUseRecorder;
}): Promise<Principal> {
  const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!presented) {
    throw new AppError("UNAUTHENTICATED", "Missing bearer credential: send 'Authorization: Bearer <API key>'.");
  }
  return authenticateApiKeySecret({ db, key: presented, cache, uses });
}

/**
 * The principal of the header's key when this process resolved it within the last minute (the
 * cache), without asking the database; undefined otherwise. An address throttled for failed key
 * checks still lets such a key through: it is a key in use, not a guess.
 */
export function recentlyResolvedApiKey(authorization: string | null | undefined, cache: ApiKeyCache): Principal | undefined {
  const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  return presented === undefined ? undefined : cache.get(hashApiKey(presented));
}

/**
 * Resolves a plain API key to a principal, or throws UNAUTHENTICATED. The one path every transport
 * takes (REST bearer header, the console's sign-in), so hashing and comparison never diverge.
 */
export async function authenticateApiKeySecret({
  db,
  key,
  cache,
  uses,
}: {
  db: Db;
  key: string;
  cache?: ApiKeyCache;
  uses?: ApiKeyUseRecorder;
}): Promise<Principal> {
  const principal = await resolveApiKeySecret(db, key, cache);
  uses?.record(principal.apiKeyId);
  return principal;
}

async function resolveApiKeySecret(db: Db, key: string, cache: ApiKeyCache | undefined): Promise<Principal> {
  const hashedKey = hashApiKey(key);
  const cached = cache?.get(hashedKey);
  if (cached) return cached;
  // Raw SQL: this runs on every request, and one round trip is all it needs.
  const [apiKey] = await querySql<{
    id: number;
    name: string;
    role: ApiKeyRole;
    hashed_key: string;
    revoked_at: Date | null;
    scope: number[];
  }>(db, {
    name: "svc-authenticate-api-key",
    text: `SELECT k.id, k.name, k.role::text AS role, k.hashed_key, k.revoked_at,
       COALESCE(array_agg(s.cc_pair_id ORDER BY s.cc_pair_id) FILTER (WHERE s.cc_pair_id IS NOT NULL), '{}') AS scope
     FROM api_key k LEFT JOIN api_key_scope s ON s.api_key_id = k.id
     WHERE k.hashed_key = $1
     GROUP BY k.id`,
    values: [hashedKey],
  });
  // The lookup is by hash, so timing reveals nothing about the key; the explicit comparison keeps
  // the check honest should the lookup ever become a prefix or case-insensitive match.
  if (!apiKey || apiKey.revoked_at !== null || !hashesMatch(apiKey.hashed_key, hashedKey)) {
    throw new AppError("UNAUTHENTICATED", "Invalid or revoked API key.");
  }
  const principal: Principal = {
    apiKeyId: apiKey.id,
    name: apiKey.name,
    role: apiKey.role,
    scopeCcPairIds: apiKey.scope.length > 0 ? apiKey.scope : null,
  };
  cache?.set(hashedKey, principal);
  return principal;
}
