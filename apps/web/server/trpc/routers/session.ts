import { authenticateAdminSession, createAdminSession, endAdminSession, isAppError, toAppError, type Principal } from "@svc/core";
import { OkSchema, SessionUserSchema, SignInInputSchema, type SessionUser } from "@svc/schema";
import { TRPCError } from "@trpc/server";
import { credentialRetryAfter, noteCredentialFailure, noteCredentialRefusal } from "../../credential-throttle";
import { clearedSessionCookie, sessionCookie } from "../../session-cookie";
import { publicProcedure, router } from "../init";

function toSessionUser(principal: Principal): SessionUser {
  return { name: principal.name, role: principal.role, scopeCcPairIds: principal.scopeCcPairIds };
}

export const sessionRouter = router({
  /** Pasting an admin or curator key opens a server-side session; the browser keeps only its token. */
  signIn: publicProcedure
    .input(SignInInputSchema)
    .output(SessionUserSchema)
    .mutation(async ({ ctx, input }) => {
      // Guessing keys here is throttled with the REST key checks, per client address (credential-throttle.ts).
      const retryAfter = credentialRetryAfter(ctx.clientAddress);
      if (retryAfter !== undefined) {
        noteCredentialRefusal("sign_in");
        ctx.resHeaders.set("retry-after", String(retryAfter));
        throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: "Too many failed sign-ins from this address; try again later." });
      }
      const session = await createAdminSession({ db: ctx.db, apiKey: input.apiKey, cache: ctx.apiKeys, uses: ctx.apiKeyUses }).catch(
        (error: unknown) => {
          if (toAppError(error)?.code === "UNAUTHENTICATED") noteCredentialFailure(ctx.clientAddress, "sign_in");
          throw error;
        },
      );
      ctx.resHeaders.append(
        "set-cookie",
        sessionCookie({ token: session.token, maxAgeSeconds: session.lifetimeSeconds, secure: ctx.secureCookies }),
      );
      return toSessionUser(session.principal);
    }),

  signOut: publicProcedure.output(OkSchema).mutation(async ({ ctx }) => {
    await endAdminSession({ db: ctx.db, token: ctx.sessionToken });
    ctx.resHeaders.append("set-cookie", clearedSessionCookie({ secure: ctx.secureCookies }));
    return { ok: true as const };
  }),

  /** Who is signed in; null rather than an error, so the UI can show the sign-in form. */
  me: publicProcedure.output(SessionUserSchema.nullable()).query(async ({ ctx }) => {
    try {
      return toSessionUser(await authenticateAdminSession({ db: ctx.db, token: ctx.sessionToken }));
    } catch (error) {
      if (isAppError(error) && error.code === "UNAUTHENTICATED") return null;
      throw error;
    }
  }),
});
