// The console while PostgreSQL is down and after it returns, in a real browser: svc's own embedded
// server, stopped and started again by the test (the shared one cannot be).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createApiKey, prepareDatabase } from "@svc/core";
import { createDb } from "@svc/db";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "@svc/db/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "../production-server";
import { launchBrowser, type TestBrowser } from "./browser";

const POSTGRES_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off"];
const UI_TIMEOUT = 30_000;

let dataDir: string;
let database: EmbeddedPostgresServer | undefined;
let server: ProductionServer | undefined;
let browser: TestBrowser | undefined;
let adminKey = "";

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-console-outage-"));
  database = await startEmbeddedPostgres({ dataDir, postgresFlags: POSTGRES_FLAGS });
  await prepareDatabase(database.databaseUrl);
  const db = createDb({ databaseUrl: database.databaseUrl, poolSize: 1 });
  try {
    adminKey = (await createApiKey({ db, name: "Outage admin", role: "admin" })).key;
  } finally {
    await db.$disconnect();
  }
  server = await startProductionServer({ databaseUrl: database.databaseUrl });
  browser = await launchBrowser({ baseURL: server.base });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the admin console during a database outage", () => {
  it("shows 'Database unavailable' while PostgreSQL is down and recovers by itself once it is back", { timeout: 120_000 }, async () => {
    if (!browser || !database) throw new Error("not started");
    const { page } = browser;
    const { port } = database;
    await page.goto("/admin/sign-in");
    await page.getByLabel("API key").fill(adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/admin\/connectors/);

    await database.stop();
    database = undefined;
    // A page whose queries now fail: the shell shows the state, the page its own error below.
    await page.getByRole("link", { name: /Indexing health/ }).click();
    const banner = page.getByTestId("database-unavailable");
    await banner.waitFor({ timeout: UI_TIMEOUT });
    expect(await banner.textContent()).toContain("Database unavailable");
    await browser.screenshot("database-unavailable-banner");

    // A full load cannot even check the session: 503, and a page that says so in place of the console
    // and reloads itself.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(503);
    expect(reloaded?.headers()["retry-after"]).toBe("5");
    await banner.waitFor({ timeout: UI_TIMEOUT });
    expect(await page.getByTestId("session-name").count()).toBe(0);
    await browser.screenshot("database-unavailable-page");

    database = await startEmbeddedPostgres({ dataDir, port, postgresFlags: POSTGRES_FLAGS });
    // No reload by the test: the page loads itself again.
    await page.getByTestId("session-name").waitFor({ timeout: UI_TIMEOUT });
    expect(await page.getByTestId("session-name").textContent()).toBe("Outage admin");
    await banner.waitFor({ state: "detached", timeout: UI_TIMEOUT });
    expect(browser.pageErrors).toEqual([]);
  });
});
