// What the console's browser tests share: their world (database, production server, worker, browser),
// REST calls as a script makes them, and waiting for a page's text (the pages refresh themselves) with
// the server's output in the failure message.
import { removeTestSearchIndex } from "@svc/core/testing";
import type { AttemptWindow } from "@svc/core";
import type { Db } from "@svc/db";
import { createTestDatabase, waitFor, type TestDatabase } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { PNG } from "../factories";
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
 * indexing worker on the same database (sending webhooks with `webhooks`), and a browser whose base URL is the server. The fields are
 * set once beforeAll has run; the helpers below come with it.
 */
export function useConsoleWorld(
  seed: (db: Db) => Promise<void>,
  { attemptWindow, webhooks = false }: { attemptWindow?: AttemptWindow; webhooks?: boolean } = {},
) {
  const world = {} as ConsoleWorld;
  beforeAll(async () => {
    world.database = await createTestDatabase();
    await seed(world.database.db);
    // With webhooks, endpoints may be the test's loopback receivers, and the worker sends to them.
    world.server = await startProductionServer({ databaseUrl: world.database.databaseUrl, env: webhooks ? { SVC_WEBHOOK_ALLOW_PRIVATE: "1" } : {} });
    world.worker = await startTestWorker({
      db: world.database.db,
      databaseUrl: world.database.databaseUrl,
      webhooks,
      ...(attemptWindow ? { attemptWindow } : {}),
    });
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
  const helpers = consoleHelpers(() => world.server);
  return Object.assign(world, helpers, {
    /** Uploads one image (a PNG's first bytes unless given) over REST with the key, as a script does; its file_id. */
    uploadImage: async (key: string, name: string, bytes: Uint8Array = PNG): Promise<string> => {
      const form = new FormData();
      form.append("files", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), name);
      const response = await fetch(`${world.server.base}/api/user/file/upload`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
      expect(response.status).toBe(200);
      return ((await response.json()) as { user_files: { file_id: string }[] }).user_files[0]?.file_id ?? "";
    },

    /**
     * Ingests support tickets (`[id, text]`) into the pair with the key, over REST as a script does,
     * and waits until the worker has indexed each or marked it failed.
     */
    ingestTickets: async (key: string, ccPairId: number, tickets: [id: string, text: string][]): Promise<void> => {
      for (const [id, text] of tickets) {
        const response = await helpers.rest("POST", "/svc-api/ingestion", key, {
          document: { id, semantic_identifier: `Ticket ${id}`, sections: [{ text }], metadata: {} },
          cc_pair_id: ccPairId,
        });
        expect(response.status).toBe(200);
      }
      const ids = tickets.map(([id]) => id);
      await waitFor("the tickets indexed or failed", async () =>
        (await world.database.db.document.count({ where: { id: { in: ids }, indexingStatus: { in: ["indexed", "failed"] } } })) === ids.length
          ? true
          : undefined,
      );
    },
  });
}

export function consoleHelpers(server: () => ProductionServer) {
  const rest = (method: string, path: string, key: string, body?: unknown): Promise<Response> =>
    fetch(`${server().base}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    /** A REST call as a script would make it. */
    rest,

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
