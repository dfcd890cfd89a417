// Every entry of the REST contract, as the dispatcher serves it: the roles the entry names are the
// ones that get in. The route list is the contract itself, so a new entry is covered without edits.
import { recordWorkerHeartbeat } from "@svc/core";
import { REST_CONTRACT, type RestEndpoint } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { ERROR_DETAIL, useTestApp } from "./app";

const app = useTestApp();

const entries: [string, RestEndpoint][] = Object.entries(REST_CONTRACT);

/** The entry's path under /api with each `{param}` filled in. */
function pathOf(entry: RestEndpoint): string {
  return `/api${entry.path.replace(/\{[^}]+\}/g, "1")}`;
}

describe("the REST contract's roles", () => {
  it("answers 401 with WWW-Authenticate without a key, and 403 to a role the entry does not name", async () => {
    const keys = { basic: await app.createKey("basic"), curator: await app.createKey("curator") };
    for (const [id, entry] of entries) {
      if (entry.auth === "public") continue;
      const anonymous = await app.request(entry.method, pathOf(entry), { key: null });
      expect(anonymous.status, id).toBe(401);
      expect(anonymous.headers.get("www-authenticate"), id).toBe("Bearer");
      expect(await anonymous.json(), id).toEqual(ERROR_DETAIL);
      for (const role of ["basic", "curator"] as const) {
        if (entry.auth.includes(role)) continue;
        const refused = await app.request(entry.method, pathOf(entry), { key: keys[role] });
        expect(refused.status, `${id} as ${role}`).toBe(403);
        expect(await refused.json(), `${id} as ${role}`).toEqual(ERROR_DETAIL);
      }
    }
  });

  it("serves public entries without a key", async () => {
    // Readiness also needs a worker: stamp a heartbeat as a running worker does.
    await recordWorkerHeartbeat({ db: app.db, workerId: "contract-test", hostname: "test", pid: process.pid, startedAt: new Date() });
    for (const [id, entry] of entries) {
      if (entry.auth !== "public") continue;
      expect((await app.request(entry.method, pathOf(entry), { key: null })).status, id).toBe(200);
    }
  });
});
