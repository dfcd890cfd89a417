import type { ApiKeyRole, Db } from "@svc/db";
import { AppError } from "../errors/app-error";
import { generateApiKeySecret } from "./api-key-secret";

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

export interface ApiKeyInfo {
  id: number;
  name: string;
  role: ApiKeyRole;
  displayPrefix: string;
  ccPairIds: number[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function toApiKeyInfo(row: {
  id: number;
  name: string;
  role: ApiKeyRole;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  scopes: { ccPairId: number }[];
}): ApiKeyInfo {
  const { scopes, ...rest } = row;
  return { ...rest, ccPairIds: scopes.map((scope) => scope.ccPairId) };
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
}): Promise<{ key: string; apiKey: ApiKeyInfo }> {
  const uniquePairIds = [...new Set(ccPairIds)];
  if (uniquePairIds.length > 0) {
    const found = await db.connectorCredentialPair.count({ where: { id: { in: uniquePairIds } } });
    if (found !== uniquePairIds.length) {
      throw new AppError("BAD_REQUEST", "Connector-Credential Pair specified does not exist");
    }
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
  return { key: secret.key, apiKey: toApiKeyInfo(row) };
}

export async function listApiKeys({ db }: { db: Db }): Promise<ApiKeyInfo[]> {
  const rows = await db.apiKey.findMany({ select: apiKeyInfoSelect, orderBy: { id: "asc" } });
  return rows.map(toApiKeyInfo);
}

export async function countActiveApiKeys({ db }: { db: Db }): Promise<number> {
  return db.apiKey.count({ where: { revokedAt: null } });
}

/** Revocation is immediate: the next request with the key gets 401. */
export async function revokeApiKey({ db, id }: { db: Db; id: number }): Promise<ApiKeyInfo> {
  const existing = await db.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
  if (!existing) throw new AppError("NOT_FOUND", `API key ${id} does not exist.`);
  const row = await db.apiKey.update({
    where: { id },
    data: { revokedAt: existing.revokedAt ?? new Date() },
    select: apiKeyInfoSelect,
  });
  return toApiKeyInfo(row);
}
