import { createApiKey } from "@svc/core";
import type { ApiKeyRole, Db } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll } from "vitest";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- route params differ per route
type RouteHandler = (request: Request, context: { params: Promise<any> }) => Response | Promise<Response>;
type RouteModule = Partial<Record<string, RouteHandler | string>>;

/** The REST routes under test, called in-process exactly as Next.js calls them. */
const ROUTES: Record<string, () => Promise<RouteModule>> = {
  "/api/svc-api/ingestion": () => import("../app/api/svc-api/ingestion/route"),
  "/api/user/file/upload": () => import("../app/api/user/file/upload/route"),
  "/api/openapi.json": () => import("../app/api/openapi.json/route"),
  "/api/manage/admin/connector/indexing-status": () => import("../app/api/manage/admin/connector/indexing-status/route"),
  "/api/manage/admin/cc-pair": () => import("../app/api/manage/admin/cc-pair/route"),
  "/api/manage/admin/cc-pair/[id]": () => import("../app/api/manage/admin/cc-pair/[id]/route"),
  "/api/manage/admin/federated-connector": () => import("../app/api/manage/admin/federated-connector/route"),
  "/api/manage/admin/federated-connector/[id]": () => import("../app/api/manage/admin/federated-connector/[id]/route"),
};

/** The route serving `path`, with the values of its `[name]` segments, as Next.js matches them. */
function resolveRoute(path: string): { load: () => Promise<RouteModule>; params: Record<string, string> } | undefined {
  const segments = path.split("?")[0]?.split("/") ?? [];
  for (const [pattern, load] of Object.entries(ROUTES)) {
    const patternSegments = pattern.split("/");
    if (patternSegments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = patternSegments.every((expected, index) => {
      const actual = segments[index] ?? "";
      const dynamic = /^\[(.+)\]$/.exec(expected)?.[1];
      if (dynamic === undefined) return expected === actual;
      params[dynamic] = decodeURIComponent(actual);
      return true;
    });
    if (matches) return { load, params };
  }
  return undefined;
}

export interface TestApp {
  db: Db;
  databaseUrl: string;
  adminKey: string;
  createKey(role: ApiKeyRole, ccPairIds?: number[]): Promise<string>;
  /** Sends a request to a route handler; a plain object body is sent as JSON. */
  request(
    method: string,
    path: string,
    init?: { body?: unknown; key?: string | null; headers?: Record<string, string>; params?: Record<string, string> },
  ): Promise<Response>;
  /** POST /api/svc-api/ingestion with the admin key. */
  ingest(body: unknown, key?: string | null): Promise<Response>;
}

/**
 * One isolated, migrated database per test file, with the web app's services pointed at it. Call at
 * the top level of a test file; the returned object is filled in by beforeAll.
 */
export function useTestApp(env: Record<string, string> = {}): TestApp {
  const app = {} as TestApp;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    Object.assign(process.env, { DATABASE_URL: database.databaseUrl, ...env });
    const createKey = async (role: ApiKeyRole, ccPairIds: number[] = []) =>
      (await createApiKey({ db: database.db, name: `test ${role}`, role, ccPairIds })).key;
    const request: TestApp["request"] = async (method, path, init = {}) => {
      const route = resolveRoute(path);
      if (!route) throw new Error(`no route ${path} in the test app`);
      const handler = (await route.load())[method];
      if (typeof handler !== "function") return new Response(null, { status: 405 });
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? app.adminKey : init.key;
      if (key !== null) headers.set("authorization", `Bearer ${key}`);
      let body: BodyInit | undefined;
      if (typeof init.body === "string" || init.body instanceof FormData || init.body instanceof Uint8Array) {
        body = init.body as BodyInit;
      } else if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers.set("content-type", "application/json");
      }
      return await handler(new Request(`http://localhost${path}`, { method, headers, body }), { params: Promise.resolve(init.params ?? route.params) });
    };
    Object.assign(app, {
      db: database.db,
      databaseUrl: database.databaseUrl,
      adminKey: await createKey("admin"),
      createKey,
      request,
      ingest: (body: unknown, key?: string | null) => request("POST", "/api/svc-api/ingestion", { body, key }),
    });
  });
  afterAll(async () => {
    const holder = globalThis as { svcServices?: Promise<{ boss: { stop(o: object): Promise<void> }; db: Db }> };
    const services = await holder.svcServices?.catch(() => undefined);
    await services?.boss.stop({ graceful: false, close: true });
    await services?.db.$disconnect();
    holder.svcServices = undefined;
    await drop?.();
  });
  return app;
}

/** A minimal valid ingestion body; override any field of `document`. */
export function ingestionBody(document: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    document: {
      semantic_identifier: "Onboarding guide",
      sections: [{ text: "Welcome to the team.", link: "https://wiki.example.com/onboarding" }],
      metadata: {},
      ...document,
    },
    ...extra,
  };
}
