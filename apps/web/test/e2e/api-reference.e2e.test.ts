// GET /api/docs in a real browser (Debian's Chromium): the API reference loads from svc alone (no
// request leaves it), takes an API key, and its "try it" client calls the running svc with it.
import { createTestKey } from "@svc/core/testing";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import type { Request as BrowserRequest } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "../production-server";
import { launchBrowser, type TestBrowser } from "./browser";

const UI_TIMEOUT = 60_000;

let database: TestDatabase;
let server: ProductionServer;
let browser: TestBrowser;
let adminKey = "";
const requested: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  adminKey = await createTestKey(database.db, "admin", [], "API reference admin");
  server = await startProductionServer({ databaseUrl: database.databaseUrl });
  browser = await launchBrowser({ baseURL: server.base });
  browser.context.on("request", (request: BrowserRequest) => requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.drop();
});

it("serves the reference from svc alone, and sends an authorized request from it", async () => {
  const { page } = browser;
  const response = await page.goto("/api/docs");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
  // The OpenAPI document's tags are listed (the first one open), with the operations' "try it" buttons;
  // the reference renders an operation once it is near the view, so the sidebar brings /metrics there.
  await page.getByText("Prometheus metrics").first().click();
  const tryMetrics = page.getByRole("button", { name: /Test Request.*\/metrics/ }).first();
  await tryMetrics.waitFor({ timeout: UI_TIMEOUT });
  for (const tag of ["ingestion", "search", "connectors", "files"]) {
    await page.getByRole("button", { name: `Open Group - ${tag}` }).first().waitFor({ timeout: UI_TIMEOUT });
  }

  // Authorize with an admin key, open the client on GET /metrics (admin only) and send.
  await page.getByPlaceholder("Token").first().fill(adminKey);
  await tryMetrics.click();
  const [sent] = await Promise.all([
    page.waitForResponse((answer) => new URL(answer.url()).pathname === "/api/metrics", { timeout: UI_TIMEOUT }),
    page.getByRole("button", { name: /Send get request to/ }).first().click(),
  ]);
  expect(sent.status()).toBe(200);
  expect(await sent.request().headerValue("authorization")).toBe(`Bearer ${adminKey}`);
  expect(await sent.text()).toContain("svc_http_requests_total");
  await page.getByText("200 OK").first().waitFor({ timeout: UI_TIMEOUT });
  await browser.screenshot("api-reference");

  // Everything the page loaded came from svc: the page, Scalar's bundle, the OpenAPI document, the call.
  const origins = new Set(requested.map((url) => new URL(url).origin));
  expect([...origins]).toEqual([server.base]);
  expect(requested).toEqual(expect.arrayContaining([`${server.base}/api/docs/scalar.js`, `${server.base}/api/openapi.json`]));
  expect(browser.pageErrors).toEqual([]);
}, 180_000);
