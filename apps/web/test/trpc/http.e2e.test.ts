// The console's endpoints over real HTTP, through the production server (dist/server.js, which hands
// /api/trpc and /api/admin/upload to Next): the session cookie and the cross-site refusal.
import { describe, expect, it } from "vitest";
import { PNG, uploadForm } from "../factories";
import { useProductionServer } from "../production-server";

const app = useProductionServer({ adminKeyName: "console admin" });

/** A tRPC mutation as the client sends it: POST, the input in superjson's envelope. */
function mutation(procedure: string, input: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${app.base}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ json: input }),
  });
}

async function sessionCount(): Promise<number> {
  return app.database.db.adminSession.count();
}

describe("/api/trpc over HTTP", () => {
  it("refuses cross-site mutations before they run, and accepts same-origin ones", async () => {
    const sameOrigin = { origin: app.base };
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: app.base.replace("127.0.0.1", "localhost") },
      { origin: app.base, "sec-fetch-site": "cross-site" },
      { origin: app.base, "sec-fetch-site": "same-site" },
      {},
    ];
    for (const headers of crossSite) {
      const response = await mutation("session.signIn", { apiKey: app.adminKey }, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await response.json()).toMatchObject({ error: { json: { data: { code: "FORBIDDEN" } } } });
    }
    expect(await sessionCount()).toBe(0);

    const sameOriginHeaders: Record<string, string>[] = [sameOrigin, { "sec-fetch-site": "same-origin" }];
    for (const headers of sameOriginHeaders) {
      const response = await mutation("session.signIn", { apiKey: app.adminKey }, headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ result: { data: { json: { name: "console admin", role: "admin", scopeCcPairIds: null } } } });
      expect(response.headers.get("set-cookie")).toMatch(/^svc_session=[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    }
    expect(await sessionCount()).toBe(2);
  });

  it("keeps the session in the cookie: queries by GET, mutations only by POST, sign-out clears it", async () => {
    // As behind a TLS proxy: the browser's origin is https.
    const signIn = await mutation("session.signIn", { apiKey: app.adminKey }, { origin: app.base.replace("http:", "https:"), "x-forwarded-proto": "https" });
    const setCookie = signIn.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/; Secure$/);
    const cookie = setCookie.split(";")[0] ?? "";

    const me = await fetch(`${app.base}/api/trpc/session.me`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ result: { data: { json: { role: "admin" } } } });
    const anonymous = await fetch(`${app.base}/api/trpc/keys.list`);
    expect(anonymous.status).toBe(401);

    const overGet = await fetch(`${app.base}/api/trpc/session.signOut`, { headers: { cookie } });
    expect(overGet.status).toBe(405);

    const upload = uploadForm(["diagram.png", PNG]);
    const crossSiteUpload = await fetch(`${app.base}/api/admin/upload`, { method: "POST", headers: { cookie, origin: "https://evil.example" }, body: upload });
    expect(crossSiteUpload.status).toBe(403);
    const noSession = await fetch(`${app.base}/api/admin/upload`, { method: "POST", headers: { origin: app.base }, body: upload });
    expect(noSession.status).toBe(401);
    const uploaded = await fetch(`${app.base}/api/admin/upload`, { method: "POST", headers: { cookie, origin: app.base }, body: upload });
    expect(uploaded.status).toBe(200);
    const body = (await uploaded.json()) as { userFiles: { fileId: string; name: string }[]; rejectedFiles: unknown[] };
    expect(body).toMatchObject({ userFiles: [{ name: "diagram.png", fileType: "image/png" }], rejectedFiles: [] });
    const listed = await fetch(`${app.base}/api/trpc/uploads.list`, { headers: { cookie } });
    expect(await listed.json()).toMatchObject({ result: { data: { json: [{ fileId: body.userFiles[0]?.fileId, name: "diagram.png" }] } } });

    const signOut = await mutation("session.signOut", undefined, { cookie, origin: app.base });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.get("set-cookie")).toMatch(/^svc_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await fetch(`${app.base}/api/trpc/keys.list`, { headers: { cookie } })).status).toBe(401);
  });
});
