import { createTestKey, removeTestSearchIndex, testSearchIndex } from "@svc/core/testing";
import type { ApiKeyRole, Db } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, expect } from "vitest";
import { dispatchRestRequest } from "../server/rest/dispatch-rest-request";
import { closeServices } from "../server/services";

export interface TestApp {
  db: Db;
  databaseUrl: string;
  adminKey: string;
  createKey(role: ApiKeyRole, ccPairIds?: number[]): Promise<string>;
  /** Sends a request through the REST dispatcher, in-process; a plain object body is sent as JSON. */
  request(
    method: string,
    path: string,
    init?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
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
    drop = () => database.drop();
    // As in the production server the e2e tests start: shedding on event-loop delay and the in-flight
    // limit adapting to latency are off unless a test asks for them. This process runs the tests
    // too, and on a busy machine its loop stalls now and then: a stray 429 (CI saw two, on three
    // concurrent writes) would fail tests about something else.
    Object.assign(process.env, {
      SVC_MAX_EVENT_LOOP_DELAY_MS: "0",
      SVC_ADMISSION_TARGET_MS: "0",
      DATABASE_URL: database.databaseUrl,
      ...env,
    });
    // The file's own search index (a temporary SVC_INDEX_DIR), shared by the services and the factories.
    testSearchIndex();
    const createKey = (role: ApiKeyRole, ccPairIds: number[] = []) => createTestKey(database.db, role, ccPairIds);
    const request: TestApp["request"] = async (method, path, init = {}) => {
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
      // The dispatcher the production server and the Next catch-all route both call.
      return await dispatchRestRequest(new Request(`http://localhost${path}`, { method, headers, body }));
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
    await closeServices();
    await removeTestSearchIndex();
    await drop?.();
  });
  return app;
}

/**
 * What an error other than a 422 answers: `{"detail": "<message>"}`. Asymmetric matchers are typed
 * `any`; typed once here.
 */
export const ERROR_DETAIL: unknown = { detail: expect.any(String) as unknown };

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
