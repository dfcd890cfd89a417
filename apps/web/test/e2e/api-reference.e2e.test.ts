// GET /api/docs in a real browser (Debian's Chromium): the API reference loads from svc alone (no
// request leaves it), links to no other site, takes an API key, and its "try it" client calls the
// running svc with it. The console's pages and the reference show svc's icon (app/icon.svg).
import { createTestKey } from "@svc/core/testing";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import type { Page, Request as BrowserRequest } from "playwright-core";
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
  // The page loads a 4 MB script: on a loaded machine that takes longer than the default 20 s.
  browser.context.setDefaultTimeout(60_000);
  browser.context.setDefaultNavigationTimeout(60_000);
  browser.context.on("request", (request: BrowserRequest) => requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.drop();
});

/** Every href on the page (links, and anything else that points somewhere) that leaves svc's origin. */
function foreignLinks(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("[href]")]
      .map((element) => new URL(element.getAttribute("href") ?? "", location.href))
      .filter((url) => url.origin !== location.origin && url.protocol !== "javascript:")
      .map((url) => url.href),
  );
}

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

  // No badge or link out: no "Generate MCP", no "Powered by Scalar", no href to another origin.
  expect(await foreignLinks(page)).toEqual([]);
  expect(await page.getByText(/Generate MCP|Powered by Scalar/).filter({ visible: true }).count()).toBe(0);

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
  expect(await foreignLinks(page)).toEqual([]);
  expect(await page.getByText(/Generate MCP|Powered by Scalar|Ask AI/).filter({ visible: true }).count()).toBe(0);

  // Everything the page loaded came from svc: the page, Scalar's bundle, the OpenAPI document, the call.
  const origins = new Set(requested.map((url) => new URL(url).origin));
  expect([...origins]).toEqual([server.base]);
  expect(requested).toEqual(expect.arrayContaining([`${server.base}/api/docs/scalar.js`, `${server.base}/api/openapi.json`]));
  expect(browser.pageErrors).toEqual([]);
}, 180_000);

it("gives the console's pages and the reference svc's icon, which is served (no /favicon.ico 404)", async () => {
  const { page } = browser;
  const missing: string[] = [];
  page.on("response", (answer) => {
    if (answer.status() === 404) missing.push(answer.url());
  });
  for (const path of ["/admin/sign-in", "/api/docs"]) {
    await page.goto(path);
    const icon = page.locator('link[rel="icon"]').first();
    await icon.waitFor({ state: "attached", timeout: UI_TIMEOUT });
    const href = await icon.evaluate((link) => (link as HTMLLinkElement).href);
    expect(new URL(href).pathname, path).toBe("/icon.svg");
    const served = await page.request.get(href);
    expect(served.status(), href).toBe(200);
    expect(served.headers()["content-type"]).toContain("image/svg+xml");
    expect(await served.text()).toContain("<svg");
  }
  // Asked for by the browser itself where a page names no icon (a JSON answer in a tab): the same icon.
  const favicon = await page.request.get("/favicon.ico");
  expect(favicon.status()).toBe(200);
  expect(favicon.url()).toMatch(/\/icon\.svg$/);
  expect(favicon.headers()["content-type"]).toContain("image/svg+xml");
  expect(missing).toEqual([]);
}, 120_000);
