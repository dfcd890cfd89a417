import type { Db, Tx } from "@svc/db";

// The one writer of `admin_session`: a session is opened, then ended (signed out, or with its key);
// an ended row is kept for the record. authenticate-admin-session.ts reads it.

export async function insertAdminSession(
  db: Db,
  session: { hashedToken: string; apiKeyId: number; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.adminSession.create({ data: session });
}

/** Ends the open session with this token hash; an unknown or ended one is left as it is. */
export async function endAdminSessionRow(db: Db, hashedToken: string, revokedAt: Date): Promise<void> {
  await db.adminSession.updateMany({ where: { hashedToken, revokedAt: null }, data: { revokedAt } });
}

/** Ends every open session opened with the key (in the transaction that revokes it). */
export async function endApiKeySessions(tx: Tx, apiKeyId: number, revokedAt: Date): Promise<void> {
  await tx.adminSession.updateMany({ where: { apiKeyId, revokedAt: null }, data: { revokedAt } });
}
