// What the console's browser tests share: REST calls as a script makes them, and waiting for a
// page's text (the pages refresh themselves) with the server's output in the failure message.
import { removeTestSearchIndex } from "@svc/core/testing";
import type { Db } from "@svc/db";
import { createTestDatabase, waitFor, type TestDatabase } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startProductionServer, type ProductionServer } from "../production-server";
import { startTestWorker, type TestWorker } from "../worker";
import { launchBrowser, type TestBrowser } from "./browser";

export function consoleHelpers(server: () => ProductionServer) {
  return {
    /** A REST call as a script would make it. */
    rest: (method: string, path: string, key: string, body?: unknown): Promise<Response> =>
      fetch(`${server().base}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),

    /** Waits until the locator's text satisfies the check. */
    waitForText: async (what: string, locator: Locator, check: (text: string) => boolean, timeoutMs = 30_000): Promise<string> => {
      let seen = "";
      return waitFor(
        what,
        async () => {
          seen = (await locator.textContent({ timeout: 1_000 }).catch(() => null)) ?? "";
          return check(seen) ? seen : undefined;
        },
        { timeoutMs, describe: () => `last seen: ${seen.slice(0, 1_000)}\nserver: ${server().output().slice(-2_000)}` },
      );
    },
  };
}

/** Signs the page in with an API key, as a user does, and waits for the console's first page. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto("/admin/sign-in");
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/admin\/connectors/);
}

export interface ConsoleService {
  database: TestDatabase;
  server: ProductionServer;
  worker: TestWorker;
  browser: TestBrowser;
  page: Page;
}

/**
 * A database of its own, the production server and a real indexing worker on it, and a browser, for
 * the whole test file; `seed` fills the database before the server starts. Call at the top level of
 * a test file; the returned object is filled in by beforeAll, and everything stops after the file.
 */
export function useConsoleService(seed: (db: Db) => Promise<void>): ConsoleService {
  const service = {} as Partial<ConsoleService>;
  beforeAll(async () => {
    service.database = await createTestDatabase();
    await seed(service.database.db);
    service.server = await startProductionServer({ databaseUrl: service.database.databaseUrl });
    service.worker = await startTestWorker({ db: service.database.db, databaseUrl: service.database.databaseUrl });
    service.browser = await launchBrowser({ baseURL: service.server.base });
    service.page = service.browser.page;
  });
  afterAll(async () => {
    await service.browser?.close();
    await service.worker?.stop();
    await service.server?.stop();
    await removeTestSearchIndex();
    await service.database?.drop();
  });
  return service as ConsoleService;
}
