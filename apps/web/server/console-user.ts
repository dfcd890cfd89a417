import type { SessionUser } from "@svc/schema";
import { cookies } from "next/headers";
import { getServices } from "./services";
import { SESSION_COOKIE_NAME } from "./session-cookie";
import { createContextInner } from "./trpc/init";
import { createCaller } from "./trpc/router";

/**
 * Who is signed in to the console, for the server-rendered pages: `session.me` through the
 * server-side caller with the request's session cookie; null when nobody is (no cookie, an ended or
 * expired session, a revoked key).
 */
export async function getConsoleUser(): Promise<SessionUser | null> {
  const sessionToken = (await cookies()).get(SESSION_COOKIE_NAME)?.value ?? null;
  if (!sessionToken) return null;
  const caller = createCaller(await createContextInner({ ...(await getServices()), sessionToken }));
  return await caller.session.me();
}
