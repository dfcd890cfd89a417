// What the console's browser tests share: their world (database, production server, worker, browser),
// REST calls as a script makes them, and waiting for a page's text (the pages refresh themselves) with
// the server's output in the failure message.
import { removeTestSearchIndex } from "@svc/core/testing";
import type { Db } from "@svc/db";
import { createTestDatabase, waitFor, type TestDatabase } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startProductionServer, type ProductionServer } from "../production-server";
import { startTestWorker, type TestWorker } from "../worker";
import { launchBrowser, type TestBrowser } from "./browser";

export interface ConsoleWorld {
  database: TestDatabase;
  server: ProductionServer;
  worker: TestWorker;
  browser: TestBrowser;
  page: Page;
}

/**
 * A console browser test's world, started in beforeAll and stopped in afterAll: a test database
 * (`seed` writes what must exist before the server starts), the production build's server, an
 * indexing worker on the same database, and a browser whose base URL is the server. The fields are
 * set once beforeAll has run; the helpers below come with it.
 */
export function useConsoleWorld(seed: (db: Db) => Promise<void>): ConsoleWorld & ReturnType<typeof consoleHelpers> {
  const world = {} as ConsoleWorld;
  beforeAll(async () => {
    world.database = await createTestDatabase();
    await seed(world.database.db);
    world.server = await startProductionServer({ databaseUrl: world.database.databaseUrl });
    world.worker = await startTestWorker({ db: world.database.db, databaseUrl: world.database.databaseUrl });
    world.browser = await launchBrowser({ baseURL: world.server.base });
    world.page = world.browser.page;
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.worker?.stop();
    await world.server?.stop();
    await removeTestSearchIndex();
    await world.database?.drop();
  });
  return Object.assign(world, consoleHelpers(() => world.server));
}

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
