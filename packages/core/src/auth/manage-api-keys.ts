import { Prisma, executeSql, type ApiKeyRole, type Db, type Tx } from "@svc/db";
import type { ApiKeySummary } from "@svc/schema";
import { CC_PAIR_NOT_FOUND, MAX_PAIR_ID } from "../model/default-pair";
import { AppError } from "../errors/app-error";
import { endApiKeySessions } from "./admin-session-rows";
import { API_KEY_CHANGES_CHANNEL, ApiKeyCache } from "./api-key-cache";
import { generateApiKeySecret } from "./api-key-secret";

// The one writer of `api_key` and `api_key_scope`: keys are created with their scopes, revoked,
// stamped when used (for record-api-key-use.ts), and lose the scope of a purged pair.

export const apiKeyInfoSelect = {
  id: true,
  name: true,
  role: true,
  displayPrefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  scopes: { select: { ccPairId: true }, orderBy: { ccPairId: "asc" } },
} as const;

function toApiKeySummary(row: {
  id: number;
  name: string;
  role: ApiKeyRole;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  scopes: { ccPairId: number }[];
}): ApiKeySummary {
  const { scopes, ...rest } = row;
  return { ...rest, scopeCcPairIds: scopes.map((scope) => scope.ccPairId) };
}

/** Creates a key and returns it in plain text: the only time it is ever visible. */
export async function createApiKey({
  db,
  name,
  role,
  ccPairIds = [],
}: {
  db: Db;
  name: string;
  role: ApiKeyRole;
  ccPairIds?: number[];
}): Promise<{ key: string; apiKey: ApiKeySummary }> {
  const uniquePairIds = [...new Set(ccPairIds)];
  if (uniquePairIds.length > 0) {
    const found = uniquePairIds.every((id) => id <= MAX_PAIR_ID)
      ? await db.connectorCredentialPair.count({ where: { id: { in: uniquePairIds } } })
      : -1;
    if (found !== uniquePairIds.length) throw new AppError("BAD_REQUEST", CC_PAIR_NOT_FOUND);
  }
  const secret = generateApiKeySecret();
  const row = await db.apiKey.create({
    data: {
      name,
      role,
      hashedKey: secret.hashedKey,
      displayPrefix: secret.displayPrefix,
      scopes: { create: uniquePairIds.map((ccPairId) => ({ ccPairId })) },
    },
    select: apiKeyInfoSelect,
  });
  return { key: secret.key, apiKey: toApiKeySummary(row) };
}

export async function listApiKeys({ db }: { db: Db }): Promise<ApiKeySummary[]> {
  const rows = await db.apiKey.findMany({ select: apiKeyInfoSelect, orderBy: { id: "asc" } });
  return rows.map(toApiKeySummary);
}

export async function countActiveApiKeys({ db }: { db: Db }): Promise<number> {
  return db.apiKey.count({ where: { revokedAt: null } });
}

/**
 * Revocation is immediate: the key is evicted from this process's caches now and announced to the
 * others (see ApiKeyCache), so the next request with it gets 401 everywhere; the console sessions
 * opened with it end in the same transaction.
 */
export async function revokeApiKey({ db, id }: { db: Db; id: number }): Promise<ApiKeySummary> {
  const row = await db.$transaction(async (tx) => {
    const existing = await tx.apiKey.findUnique({ where: { id }, select: { revokedAt: true, hashedKey: true } });
    if (!existing) throw new AppError("NOT_FOUND", `API key ${id} does not exist.`);
    await tx.$executeRaw`SELECT pg_notify(${API_KEY_CHANGES_CHANNEL}, ${existing.hashedKey})`;
    ApiKeyCache.evictEverywhere(existing.hashedKey);
    const revokedAt = existing.revokedAt ?? new Date();
    // Its console sessions end with it (authenticateAdminSession also checks the key itself).
    await endApiKeySessions(tx, id, revokedAt);
    return tx.apiKey.update({ where: { id }, data: { revokedAt }, select: apiKeyInfoSelect });
  });
  return toApiKeySummary(row);
}

/**
 * A pair is going (the last step of its purge, in the purge's transaction): the keys scoped to it lose
 * it. A key whose scope rows all name this pair would have no scope left, and a key without scope rows
 * is unscoped, so it is revoked rather than widened. Every key whose scope changes is announced, so
 * API-key caches drop it (delivered at commit).
 */
export async function removePairFromKeyScopes(tx: Tx, ccPairId: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE api_key k SET revoked_at = now()
    WHERE k.revoked_at IS NULL
      AND EXISTS (SELECT 1 FROM api_key_scope s WHERE s.api_key_id = k.id AND s.cc_pair_id = ${ccPairId})
      AND NOT EXISTS (SELECT 1 FROM api_key_scope s WHERE s.api_key_id = k.id AND s.cc_pair_id <> ${ccPairId})`;
  await tx.$executeRaw`
    SELECT pg_notify(${API_KEY_CHANGES_CHANNEL}, k.hashed_key)
    FROM api_key k JOIN api_key_scope s ON s.api_key_id = k.id WHERE s.cc_pair_id = ${ccPairId}`;
  await tx.$executeRaw`DELETE FROM api_key_scope WHERE cc_pair_id = ${ccPairId}`;
}

/**
 * Stamps `last_used_at` of the keys, skipping those stamped within `intervalMs` (another process may
 * have): record-api-key-use.ts calls it in the background.
 */
export async function stampApiKeysUsed(db: Db, apiKeyIds: number[], intervalMs: number): Promise<void> {
  await executeSql(
    db,
    Prisma.sql`
      UPDATE api_key SET last_used_at = now()
      WHERE id = ANY(${apiKeyIds}::int[])
        AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ${intervalMs / 1000}))`,
  );
}
