// Test helpers for the admin console's tRPC procedures: callers built through createContextInner,
// with the same services (database pool, pg-boss producer, key cache) the route handlers use.
import { createTestPair } from "@svc/core/testing";
import { TRPCError } from "@trpc/server";
import { beforeAll, expect } from "vitest";
import { getServices } from "../../server/services";
import type { TestApp } from "../app";
import { readSessionToken } from "../../server/session-cookie";
import { createContextInner } from "../../server/trpc/init";
import { createCaller } from "../../server/trpc/router";

export type Caller = ReturnType<typeof createCaller>;

export interface ConsoleCall {
  caller: Caller;
  /** The response headers the procedures set (Set-Cookie). */
  resHeaders: Headers;
}

/** A caller as a browser with this session cookie (or none) would be, over http unless said otherwise. */
export async function consoleCaller(sessionToken: string | null, requestOrigin = "http://localhost:3000"): Promise<ConsoleCall> {
  const services = await getServices();
  const resHeaders = new Headers();
  const ctx = await createContextInner({ ...services, sessionToken, requestOrigin, resHeaders });
  return { caller: createCaller(ctx), resHeaders };
}

/** Signs in with the key and returns a caller that carries the session cookie it set. */
export async function signedIn(apiKey: string): Promise<{ caller: Caller; token: string }> {
  const { caller, resHeaders } = await consoleCaller(null);
  await caller.session.signIn({ apiKey });
  const token = readSessionToken(resHeaders.get("set-cookie"));
  if (!token) throw new Error("signIn set no session cookie");
  return { caller: (await consoleCaller(token)).caller, token };
}

/** Expects the call to fail with this tRPC code (UNAUTHORIZED, FORBIDDEN, …). */
export async function expectTrpcError(call: Promise<unknown>, code: TRPCError["code"]): Promise<void> {
  const error = await call.then(
    () => new Error(`expected ${code}, but the call succeeded`),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe(code);
}

export interface ConsoleFixture {
  /** Signed in with the app's admin key. */
  admin: Caller;
  /** Signed in with a curator key scoped to ownPair. */
  scopedCurator: Caller;
  ownPair: number;
  otherPublicPair: number;
  otherPrivatePair: number;
}

/** Three pairs (the curator's own, a public and a private one of others) and two signed-in callers. */
export function useConsoleFixture(app: TestApp): ConsoleFixture {
  const fixture = {} as ConsoleFixture;
  beforeAll(async () => {
    const ownPair = await createTestPair(app.db, { name: "Team A wiki", access: "private" });
    Object.assign(fixture, {
      ownPair,
      otherPublicPair: await createTestPair(app.db, { name: "Public handbook", access: "public" }),
      otherPrivatePair: await createTestPair(app.db, { name: "Team B secrets", access: "private" }),
      admin: (await signedIn(app.adminKey)).caller,
      scopedCurator: (await signedIn(await app.createKey("curator", [ownPair]))).caller,
    });
  });
  return fixture;
}
