import type { Db } from "@svc/db";
import { endAdminSessionRow } from "./admin-session-rows";
import { hashAdminSessionToken } from "./admin-session-token";

/** Signs out: the session row is marked revoked (kept for the record); an unknown token is a no-op. */
export async function endAdminSession({ db, token, now = new Date() }: { db: Db; token: string | null | undefined; now?: Date }): Promise<void> {
  if (!token) return;
  await endAdminSessionRow(db, hashAdminSessionToken(token), now);
}
