import { createAdminSession, hashAdminSessionToken, hashApiKey } from "@svc/core";
import { describe, expect, it } from "vitest";
import { ingestionBody, useTestApp } from "../app";
import { consoleCaller, expectTrpcError, signedIn, type Caller } from "./console";

const app = useTestApp();

/** Every procedure that needs a session, called with a valid input. */
const SESSION_CALLS: [string, (caller: Caller) => Promise<unknown>][] = [
  ["connectors.indexingStatus", (c) => c.connectors.indexingStatus({})],
  ["connectors.get", (c) => c.connectors.get({ ccPairId: 1 })],
  ["connectors.attempts", (c) => c.connectors.attempts({ ccPairId: 1 })],
  ["connectors.documents", (c) => c.connectors.documents({ ccPairId: 1 })],
  ["connectors.create", (c) => c.connectors.create({ name: "x", source: "web", accessType: "public" })],
  ["connectors.update", (c) => c.connectors.update({ ccPairId: 1, name: "x" })],
  ["connectors.delete", (c) => c.connectors.delete({ ccPairId: 1 })],
  ["connectors.createFederated", (c) => c.connectors.createFederated({ source: "federated_slack" })],
  ["connectors.deleteFederated", (c) => c.connectors.deleteFederated({ id: 1 })],
  ["documents.search", (c) => c.documents.search({ query: "x" })],
  ["documents.get", (c) => c.documents.get({ documentId: "x" })],
  ["documents.delete", (c) => c.documents.delete({ documentId: "x" })],
  ["documents.retry", (c) => c.documents.retry({ documentId: "x" })],
  ["health.overview", (c) => c.health.overview()],
  ["health.startRebuild", (c) => c.health.startRebuild({})],
  ["health.cancelRebuild", (c) => c.health.cancelRebuild()],
  ["keys.list", (c) => c.keys.list()],
  ["keys.create", (c) => c.keys.create({ name: "x", role: "basic" })],
  ["keys.revoke", (c) => c.keys.revoke({ id: 1 })],
  ["uploads.list", (c) => c.uploads.list()],
];

function cookieAttributes(setCookie: string | null): string[] {
  return (setCookie ?? "").split(";").map((part) => part.trim());
}

describe("session.signIn", () => {
  it("opens a session for admin and curator keys, storing only the token's hash", async () => {
    for (const role of ["admin", "curator"] as const) {
      const key = await app.createKey(role);
      const { caller, resHeaders } = await consoleCaller(null);
      expect(await caller.session.signIn({ apiKey: key })).toEqual({ name: `test ${role}`, role, scopeCcPairIds: null });
      const cookie = cookieAttributes(resHeaders.get("set-cookie"));
      const token = cookie[0]?.replace(/^svc_session=/, "") ?? "";
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const stored = await app.db.adminSession.findUniqueOrThrow({ where: { hashedToken: hashAdminSessionToken(token) } });
      expect(stored.hashedToken).not.toContain(token);
      expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(12 * 60 * 60 * 1000);
      expect(await (await consoleCaller(token)).caller.session.me()).toMatchObject({ role });
    }
  });

  it("reports a scoped key's pairs", async () => {
    const key = await app.createKey("curator", [1]);
    const { caller } = await consoleCaller(null);
    expect(await caller.session.signIn({ apiKey: key })).toMatchObject({ role: "curator", scopeCcPairIds: [1] });
  });

  it("refuses basic and limited keys with FORBIDDEN and unknown or revoked keys with UNAUTHORIZED, opening no session", async () => {
    const before = await app.db.adminSession.count();
    for (const role of ["basic", "limited"] as const) {
      const { caller, resHeaders } = await consoleCaller(null);
      await expectTrpcError(caller.session.signIn({ apiKey: await app.createKey(role) }), "FORBIDDEN");
      expect(resHeaders.get("set-cookie")).toBeNull();
    }
    const revoked = await app.createKey("admin");
    const { caller: admin } = await signedIn(app.adminKey);
    const { id: revokedId } = await app.db.apiKey.findUniqueOrThrow({ where: { hashedKey: hashApiKey(revoked) } });
    await admin.keys.revoke({ id: revokedId });
    const before2 = await app.db.adminSession.count();
    for (const apiKey of ["svc_not-a-real-key", revoked, "  "]) {
      const { caller, resHeaders } = await consoleCaller(null);
      await expectTrpcError(caller.session.signIn({ apiKey }), apiKey.trim() === "" ? "BAD_REQUEST" : "UNAUTHORIZED");
      expect(resHeaders.get("set-cookie")).toBeNull();
    }
    expect(await app.db.adminSession.count()).toBe(before2);
    expect(before2).toBe(before + 1);
  });

  it("sets an HttpOnly, SameSite=Strict cookie for the session's lifetime, Secure only over HTTPS", async () => {
    for (const [origin, secure] of [
      ["http://localhost:3000", false],
      ["https://console.example.com", true],
    ] as const) {
      const { caller, resHeaders } = await consoleCaller(null, origin);
      await caller.session.signIn({ apiKey: app.adminKey });
      const attributes = cookieAttributes(resHeaders.get("set-cookie"));
      expect(attributes[0]).toMatch(/^svc_session=.+/);
      expect(attributes).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/"]));
      expect(attributes).toContain(`Max-Age=${12 * 3600}`);
      expect(attributes.includes("Secure")).toBe(secure);
    }
  });
});

describe("session-only procedures", () => {
  it("answer UNAUTHORIZED without a session, with an unknown token, and after the session expired", async () => {
    const expired = await createAdminSession({ db: app.db, apiKey: app.adminKey, now: new Date(Date.now() - 13 * 3600 * 1000) });
    for (const token of [null, "not-a-session", expired.token]) {
      const { caller } = await consoleCaller(token);
      expect(await caller.session.me()).toBeNull();
      for (const [name, call] of SESSION_CALLS) {
        await expectTrpcError(call(caller), "UNAUTHORIZED").catch((error: unknown) => {
          throw new Error(`${name} with ${token ?? "no token"}: ${String(error)}`);
        });
      }
    }
  });

  it("let a session with a short lifetime work until it expires", async () => {
    const now = Date.now();
    const session = await createAdminSession({ db: app.db, apiKey: app.adminKey, lifetimeMs: 60_000, now: new Date(now - 59_000) });
    const { caller } = await consoleCaller(session.token);
    expect(await caller.session.me()).toMatchObject({ role: "admin" });
    await app.db.adminSession.update({ where: { hashedToken: hashAdminSessionToken(session.token) }, data: { expiresAt: new Date(now - 1) } });
    await expectTrpcError(caller.connectors.indexingStatus({}), "UNAUTHORIZED");
  });
});

describe("session.signOut", () => {
  it("ends the session and clears the cookie; the token no longer works", async () => {
    const { token } = await signedIn(app.adminKey);
    const { caller, resHeaders } = await consoleCaller(token);
    expect(await caller.keys.list()).not.toHaveLength(0);
    expect(await caller.session.signOut()).toEqual({ ok: true });
    const attributes = cookieAttributes(resHeaders.get("set-cookie"));
    expect(attributes).toEqual(expect.arrayContaining(["svc_session=", "Max-Age=0", "HttpOnly", "SameSite=Strict", "Path=/"]));
    const stored = await app.db.adminSession.findUniqueOrThrow({ where: { hashedToken: hashAdminSessionToken(token) } });
    expect(stored.revokedAt).not.toBeNull();
    expect(await caller.session.me()).toBeNull();
    await expectTrpcError(caller.keys.list(), "UNAUTHORIZED");
  });

  it("is harmless without a session", async () => {
    const { caller } = await consoleCaller(null);
    expect(await caller.session.signOut()).toEqual({ ok: true });
  });
});

describe("keys", () => {
  it("lists, creates (the key shown once) and revokes; a revoked key gets 401 on REST and its sessions end", async () => {
    const { caller: admin } = await signedIn(app.adminKey);
    const created = await admin.keys.create({ name: "pipeline", role: "curator", scopeCcPairIds: [1] });
    expect(created).toEqual({ id: expect.any(Number) as unknown, name: "pipeline", role: "curator", key: expect.stringMatching(/^svc_/) as unknown });
    const listed = (await admin.keys.list()).find((key) => key.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      name: "pipeline",
      role: "curator",
      displayPrefix: created.key.slice(0, 10),
      scopeCcPairIds: [1],
      createdAt: expect.any(Date) as unknown,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(await admin.keys.list())).not.toContain(created.key);

    // The new key works on REST (and is now in the REST key cache) and in the console.
    expect((await app.ingest(ingestionBody({ id: "by-pipeline" }), created.key)).status).toBe(200);
    const { caller: curator } = await signedIn(created.key);
    expect(await curator.session.me()).toMatchObject({ name: "pipeline" });

    expect(await admin.keys.revoke({ id: created.id })).toEqual({ ok: true });
    expect((await app.ingest(ingestionBody({ id: "by-pipeline-2" }), created.key)).status).toBe(401);
    await expectTrpcError(curator.connectors.indexingStatus({}), "UNAUTHORIZED");
    expect(await curator.session.me()).toBeNull();
    expect((await admin.keys.list()).find((key) => key.id === created.id)?.revokedAt).toBeInstanceOf(Date);
    expect(await app.db.adminSession.count({ where: { apiKey: { id: created.id }, revokedAt: null } })).toBe(0);
  });

  it("are for unscoped admins only; bad input is BAD_REQUEST and an unknown key NOT_FOUND", async () => {
    const { caller: curator } = await signedIn(await app.createKey("curator"));
    await expectTrpcError(curator.keys.list(), "FORBIDDEN");
    await expectTrpcError(curator.keys.create({ name: "x", role: "admin" }), "FORBIDDEN");
    await expectTrpcError(curator.keys.revoke({ id: 1 }), "FORBIDDEN");
    const { caller: scopedAdmin } = await signedIn(await app.createKey("admin", [1]));
    await expectTrpcError(scopedAdmin.keys.list(), "FORBIDDEN");
    await expectTrpcError(scopedAdmin.keys.create({ name: "escalation", role: "admin" }), "FORBIDDEN");
    const { caller: admin } = await signedIn(app.adminKey);
    await expectTrpcError(admin.keys.create({ name: "", role: "admin" }), "BAD_REQUEST");
    await expectTrpcError(admin.keys.create({ name: "x", role: "owner" as "admin" }), "BAD_REQUEST");
    await expectTrpcError(admin.keys.create({ name: "x", role: "admin", scopeCcPairIds: [999_999] }), "BAD_REQUEST");
    await expectTrpcError(admin.keys.revoke({ id: 999_999 }), "NOT_FOUND");
  });
});
