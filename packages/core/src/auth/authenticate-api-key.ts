import type { DbOrTx } from "@svc/db";
import { AppError } from "../errors/app-error";
import { hashApiKey, hashesMatch } from "./api-key-secret";
import type { Principal } from "./principal";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Resolves an `Authorization` header to a principal, or throws UNAUTHENTICATED. */
export async function authenticateApiKey({
  db,
  authorization,
}: {
  db: DbOrTx;
  authorization: string | null | undefined;
}): Promise<Principal> {
  const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!presented) {
    throw new AppError("UNAUTHENTICATED", "Missing bearer credential: send 'Authorization: Bearer <API key>'.");
  }
  const hashedKey = hashApiKey(presented);
  const apiKey = await db.apiKey.findUnique({
    where: { hashedKey },
    select: { id: true, name: true, role: true, hashedKey: true, revokedAt: true, scopes: { select: { ccPairId: true } } },
  });
  // The lookup is by hash, so timing reveals nothing about the key; the explicit comparison keeps
  // the check honest should the lookup ever become a prefix or case-insensitive match.
  if (!apiKey || apiKey.revokedAt !== null || !hashesMatch(apiKey.hashedKey, hashedKey)) {
    throw new AppError("UNAUTHENTICATED", "Invalid or revoked API key.");
  }
  return {
    apiKeyId: apiKey.id,
    name: apiKey.name,
    role: apiKey.role,
    scopeCcPairIds: apiKey.scopes.length > 0 ? apiKey.scopes.map((scope) => scope.ccPairId) : null,
  };
}
