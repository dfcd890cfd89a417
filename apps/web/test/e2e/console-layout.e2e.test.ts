// Every console page at a phone's 390 px and a desktop's 1440 px (issue 39, point 4; docs/decisions.md
// "The console on a phone"), in a real browser on the production build with a real indexing worker,
// filled with data as an operator has it: long names, long ids, many tags and badges, failures. On each
// page nothing is wider than the screen (wide tables scroll in their own box), no text is cut by its
// box, and no input is narrower than its value. The pages are the app's own: a page added without a
// line here fails the first test. Screenshots of each page at both widths (and of the first screen at
// 390 px) are saved under apps/web/test-artifacts/screenshots (layout-*.png).
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createWebhookEndpoint, OPERATOR_PRINCIPAL } from "@svc/core";
import { createTestKey, createTestPair, installPoisonTrigger, POISON } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { insertIndexAttempts, setPairStatus } from "../connectors";
import { SCREENSHOT_DIR } from "./browser";
import { signIn, useConsoleWorld } from "./console-helpers";
import { layoutProblems } from "./layout-check";

const UI_TIMEOUT = 120_000;
/** How long a page may take to show its data on a loaded machine. */
const READY = { timeout: 60_000 };
const WIDTHS = [
  { name: "390", viewport: { width: 390, height: 844 } },
  { name: "1440", viewport: { width: 1440, height: 900 } },
];

const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../app");

/** The app's page routes (`/admin/documents/[id]`), from its `page.tsx` files; route groups `(…)` are not in the path. */
async function pageRoutes(): Promise<string[]> {
  const files = await readdir(APP_DIR, { recursive: true });
  return files
    .filter((file) => path.basename(file) === "page.tsx")
    .map((file) => {
      const segments = path.dirname(file).split(path.sep).filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment));
      return `/${segments.join("/")}`;
    })
    .sort();
}

const LONG_PAIR = "Platform engineering knowledge base: runbooks, incident reviews and on-call handbooks for every region";
const LONG_ID = "confluence/PLATFORM/pages/4815162342/datacentre-migration-runbook-failover-drills-and-rollback-checklist-eu-west";
const LONG_TITLE = "Datacentre migration runbook: failover drills, on-call escalation paths and the rollback checklist for eu-west";
/** A 1×1 transparent PNG: a thumbnail that loads. */
const PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const LONG_FILE = "architecture-diagram-of-the-ingestion-pipeline-and-search-index-2026-q3-final-v7.png";

let adminKey = "";
let platform = 0;
let tickets = 0;
let imageFileId = "";
let webhookId = 0;
/** A public address literal: registered without a lookup; nothing is sent to it (the test worker sends no webhooks). */
const LONG_WEBHOOK_URL = "https://93.184.216.34/integrations/svc/platform-engineering/knowledge-base/indexing-events?tenant=northern-datacentre";

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Operations on-call administrator for the northern datacentre");
  platform = await createTestPair(db, { name: LONG_PAIR, source: "confluence" });
  tickets = await createTestPair(db, { name: "Customer support tickets (EMEA, APAC and Americas queues)", source: "zendesk", access: "private" });
  const flaky = await createTestPair(db, { name: "Legacy SharePoint intranet mirror that keeps timing out", source: "web", access: "sync" });
  await setPairStatus(db, flaky, "ACTIVE");
  await insertIndexAttempts(db, flaky, Array.from({ length: 5 }, () => ({ status: "failed" as const })));
  const partial = await createTestPair(db, { name: "Engineering handbook", source: "github" });
  await setPairStatus(db, partial, "ACTIVE");
  await insertIndexAttempts(db, partial, [{ status: "success", docsIndexed: 12_345 }, { status: "completed_with_errors", docsIndexed: 1_234_567 }]);
  for (let index = 1; index <= 12; index += 1) await createTestPair(db, { name: `Web crawl of the partner portal, region ${index}`, source: "web" });
  await createTestKey(db, "curator", [platform, tickets, flaky, partial], "Nightly ingestion pipeline for the platform team (scoped)");
  await createTestKey(db, "basic", [], "Read-only dashboard key used by the business intelligence reporting job");
  await createTestKey(db, "limited", [], "limited");
  await installPoisonTrigger(db);
  // An endpoint of every pair the operator has, with deliveries as the worker leaves them: delivered, retrying, dead.
  webhookId = (
    await createWebhookEndpoint({
      db,
      principal: OPERATOR_PRINCIPAL,
      url: LONG_WEBHOOK_URL,
      ccPairIds: [platform, tickets, flaky, partial],
      eventTypes: ["document.indexed", "document.failed", "document.deleted", "attempt.finished"],
      allowPrivate: false,
    })
  ).id;
  const delivery = { endpointId: webhookId, eventType: "document.indexed", documentId: LONG_ID, body: "{}", retryUntil: new Date(Date.now() + 86_400_000), attempts: 1 };
  await db.webhookDelivery.createMany({
    data: [
      { ...delivery, eventId: 1n, status: "delivered", lastStatusCode: 204, lastAttemptAt: new Date(), finishedAt: new Date() },
      { ...delivery, eventId: 2n, status: "pending", lastStatusCode: 503, lastError: "HTTP 503", lastAttemptAt: new Date(), nextAttemptAt: new Date(Date.now() + 3_600_000) },
      {
        ...delivery,
        eventId: 3n,
        eventType: "document.failed",
        status: "dead",
        attempts: 33,
        lastError: "connect ETIMEDOUT 93.184.216.34:443 after 10000 ms: the endpoint did not answer within SVC_WEBHOOK_TIMEOUT_MS",
        lastAttemptAt: new Date(),
        finishedAt: new Date(),
      },
    ],
  });
});
const { rest } = world;
let page: Page;

beforeAll(async () => {
  page = world.page;
  imageFileId = await world.uploadImage(adminKey, LONG_FILE, PIXEL_PNG);
  await world.uploadImage(adminKey, "logo.png", PIXEL_PNG);
  const metadata = {
    department: "Platform engineering",
    region: ["eu-west-1", "eu-central-1", "us-east-1", "ap-southeast-2"],
    classification: "internal — do not forward outside the company",
    owner_team: "site-reliability-engineering-and-developer-productivity",
    review_cycle: "quarterly",
  };
  const documents = [
    {
      id: LONG_ID,
      source: "confluence",
      semantic_identifier: LONG_TITLE,
      title: `${LONG_TITLE} (second revision, approved by the architecture board)`,
      sections: [
        { text: "The runbook for the datacentre migration: drain traffic, fail over the primary database, verify replication lag.", link: `https://wiki.example.com/${LONG_ID}` },
        { image_file_id: imageFileId },
        { text: `${"A very long line of configuration: ".repeat(3)}${"x".repeat(180)}` },
        // Shown as text, never a link: long, it is cut with an ellipsis and whole in its title.
        { text: "An attachment inlined as a data URL.", link: `data:text/plain;base64,${"QUJD".repeat(60)}` },
      ],
      metadata,
      doc_updated_at: "2026-06-01T10:00:00Z",
      primary_owners: [{ email: "platform-oncall-rotation-primary@engineering.example.com", display_name: "Platform on-call rotation (primary)" }],
    },
    ...Array.from({ length: 6 }, (_, index) => ({
      id: `${LONG_ID}-appendix-${index + 1}`,
      source: "confluence",
      semantic_identifier: `Appendix ${index + 1} of the runbook: region-by-region failover timings and dependencies`,
      sections: [{ text: `Runbook appendix ${index + 1}: failover timings for each region and the services that depend on them.` }],
      metadata,
      doc_updated_at: "2026-06-02T10:00:00Z",
    })),
  ];
  for (const document of documents) {
    // As a script does: a 503 (the database stalled on a loaded machine) is tried again.
    const status = await waitFor("the document ingested", async () => {
      const response = await rest("POST", "/svc-api/ingestion", adminKey, { document, cc_pair_id: platform });
      return response.status === 503 ? undefined : response.status;
    });
    expect(status).toBe(200);
  }
  await world.ingestTickets(adminKey, tickets, [
    ["ticket-4711-printer-on-the-third-floor-keeps-jamming-after-the-firmware-update", "The printer on the third floor is fixed."],
    ["ticket-4712-poisoned", `A ticket that holds a ${POISON} and fails to index.`],
  ]);
  const ids = documents.map((document) => document.id);
  await waitFor("the runbook indexed", async () =>
    (await world.database.db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } })) === ids.length ? true : undefined,
  );
});

/** A console page: where to go, and what shows once it has loaded its data. */
interface ConsolePage {
  path: () => string;
  ready: (page: Page) => Promise<void>;
}

const main = (page: Page) => page.locator("main");
const connectorsShown = (page: Page) => page.getByRole("table", { name: "Connectors" }).locator("tr[data-cc-pair-id]").nth(10).waitFor(READY);

/** Every page route, how to visit it with the seeded data, and what shows once it is ready. */
const PAGES: Record<string, ConsolePage & { signedOut?: true }> = {
  "/": { path: () => "/", ready: (page) => page.getByRole("heading", { name: "svc" }).waitFor(READY) },
  "/admin/sign-in": { path: () => "/admin/sign-in", ready: (page) => page.getByLabel("API key").waitFor(READY), signedOut: true },
  // The console's front page is the connectors listing.
  "/admin": { path: () => "/admin", ready: connectorsShown },
  "/admin/connectors": { path: () => "/admin/connectors", ready: connectorsShown },
  "/admin/connectors/new": { path: () => "/admin/connectors/new", ready: (page) => page.getByRole("form", { name: "New connector-credential pair" }).waitFor(READY) },
  "/admin/connectors/[id]": {
    path: () => `/admin/connectors/${platform}`,
    ready: (page) => page.getByRole("table", { name: "Documents of this connector" }).locator("tbody tr").nth(6).waitFor(READY),
  },
  "/admin/documents": {
    // A search with every filter set, so each input holds a value.
    path: () =>
      `/admin/documents?${new URLSearchParams({
        q: "runbook",
        match: "all",
        sources: "confluence,web,zendesk",
        pairs: `${platform},${tickets}`,
        tag: "department=Platform engineering",
        after: "2026-01-01",
        before: "2026-12-31",
        limit: "25",
      })}`,
    ready: (page) => page.getByRole("article", { name: LONG_TITLE }).waitFor(READY),
  },
  "/admin/documents/[id]": {
    path: () => `/admin/documents/${encodeURIComponent(LONG_ID)}`,
    ready: (page) => main(page).getByText("Platform on-call rotation (primary)").waitFor(READY),
  },
  "/admin/health": {
    path: () => "/admin/health",
    ready: (page) => page.getByTestId("failed-documents-tile").filter({ hasText: /^1$/ }).waitFor(READY),
  },
  "/admin/keys": {
    path: () => "/admin/keys",
    ready: (page) => page.getByRole("table", { name: "API keys" }).getByText("Read-only dashboard key", { exact: false }).waitFor(READY),
  },
  "/admin/webhooks": {
    path: () => `/admin/webhooks?endpoint=${webhookId}`,
    ready: (page) => page.getByRole("table", { name: "Webhook deliveries" }).locator("tr[data-delivery-id]").nth(2).waitFor(READY),
  },
  "/admin/uploads": { path: () => "/admin/uploads", ready: (page) => page.getByRole("table", { name: "Recent uploads" }).getByText(LONG_FILE).waitFor(READY) },
};

/** The route's screenshot name: `/admin/documents/[id]` → `admin-documents-id`. */
function shotName(route: string): string {
  return route === "/" ? "home" : route.slice(1).replace(/[[\]]/g, "").replaceAll("/", "-");
}

async function visit(route: string, viewport: { width: number; height: number }): Promise<void> {
  const entry = PAGES[route]!;
  await page.setViewportSize(viewport);
  await page.goto(entry.path());
  await entry.ready(page);
  // Web fonts and late images settle the layout.
  await page.evaluate(() => document.fonts.ready);
}

describe("every console page at 390 px and 1440 px", () => {
  it("has a line for every page of the app", async () => {
    expect(Object.keys(PAGES).sort()).toEqual(await pageRoutes());
  });

  for (const { name, viewport } of WIDTHS) {
    it(`fits ${name} px signed out`, { timeout: UI_TIMEOUT }, async () => {
      await page.context().clearCookies();
      for (const [route, entry] of Object.entries(PAGES)) {
        if (!entry.signedOut) continue;
        await visit(route, viewport);
        expect({ route, problems: await layoutProblems(page) }).toEqual({ route, problems: [] });
        await world.browser.screenshot(`layout-${shotName(route)}-${name}`);
      }
    });

    it(`fits ${name} px on every signed-in page`, { timeout: UI_TIMEOUT * 2 }, async () => {
      await page.setViewportSize(viewport);
      await signIn(page, adminKey);
      await page.setViewportSize(viewport);
      const failures: { route: string; problems: string[] }[] = [];
      for (const [route, entry] of Object.entries(PAGES)) {
        if (entry.signedOut) continue;
        await visit(route, viewport);
        const problems = await layoutProblems(page);
        if (problems.length) failures.push({ route, problems });
        await world.browser.screenshot(`layout-${shotName(route)}-${name}`);
        // What a person sees first.
        if (name === "390") await page.screenshot({ path: path.join(SCREENSHOT_DIR, `layout-${shotName(route)}-390-first-screen.png`) });
      }
      expect(failures).toEqual([]);
      expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
    });

    it(`fits ${name} px with the navigation open`, { timeout: UI_TIMEOUT }, async () => {
      await visit("/admin/connectors", viewport);
      if (name === "390") {
        await page.getByRole("button", { name: "Toggle navigation" }).click();
        // The navbar slides in from the left: measured mid-slide (a loaded machine), it reads as cut.
        const navbar = page.locator(".mantine-AppShell-navbar");
        await waitFor("the navigation to finish sliding in", async () => (((await navbar.boundingBox())?.x ?? -1) >= 0 ? true : undefined));
      }
      expect(await page.getByRole("link", { name: /Indexing health/ }).isVisible()).toBe(true);
      expect(await layoutProblems(page)).toEqual([]);
      if (name === "390") await world.browser.screenshot("layout-navigation-390");
    });
  }
});

describe("the connectors page on a phone", () => {
  const filters = () => page.getByRole("region", { name: "Filters" });
  const table = () => page.getByRole("table", { name: "Connectors" });

  it("shows its table on the first screen, the filters behind a button", { timeout: UI_TIMEOUT }, async () => {
    await visit("/admin/connectors", WIDTHS[0]!.viewport);
    expect(await filters().isVisible()).toBe(false);
    const tableTop = await table().evaluate((element) => element.getBoundingClientRect().top);
    expect(tableTop).toBeLessThan(WIDTHS[0]!.viewport.height - 150);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "layout-connectors-first-screen-390.png") });
  });

  it("opens the filters, which fit, filter, and stay in the URL", { timeout: UI_TIMEOUT }, async () => {
    const toggle = page.getByRole("button", { name: "Filters", exact: true });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    await filters().waitFor();
    expect(await page.getByRole("button", { name: "Hide filters" }).getAttribute("aria-expanded")).toBe("true");
    expect(await layoutProblems(page)).toEqual([]);
    await page.getByLabel("Name contains").fill("support");
    await page.waitForURL(/name=support/);
    await waitFor("only the support tickets", async () => ((await table().locator("tr[data-cc-pair-id]").count()) === 1 ? true : undefined));
    await world.browser.screenshot("layout-connectors-filters-390");
    // A reload keeps the filter; the panel is closed again, and the button counts what is set.
    await page.reload();
    await waitFor("the filtered table after a reload", async () => ((await table().locator("tr[data-cc-pair-id]").count()) === 1 ? true : undefined));
    expect(await filters().isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: /^Filters/ }).textContent()).toBe("Filters1");
  });

  it("shows the filters without a button on a desktop", { timeout: UI_TIMEOUT }, async () => {
    await page.setViewportSize(WIDTHS[1]!.viewport);
    await filters().waitFor();
    expect(await page.getByRole("button", { name: /^Filters/ }).isVisible()).toBe(false);
    expect(await page.getByLabel("Name contains").inputValue()).toBe("support");
  });
});
