// The admin console end to end: the production build in a real browser (Debian's Chromium), with an
// indexing worker on the same database, so what the pages show comes from real ingestion and
// indexing. One browser session walks through the console in order; a screenshot of every page is
// saved under apps/web/test-artifacts/screenshots.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { insertIndexAttempts, setPairStatus } from "../connectors";
import { useConsoleWorld } from "./console-helpers";

/** More than a page (10 rows) of one source, so its listing has a second page. */
const WEB_PAIRS = 13;
const UI_TIMEOUT = 60_000;
/** A 1×1 transparent PNG. */
const PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

let adminKey = "";

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  for (let index = 1; index <= WEB_PAIRS; index += 1) {
    await createTestPair(db, { name: `Web crawl ${String(index).padStart(2, "0")}`, source: "web", access: index % 3 === 0 ? "private" : "public" });
  }
  // A few other sources and states, so the listing shows what it has to tell apart.
  const wiki = await createTestPair(db, { name: "Engineering wiki", source: "confluence" });
  await setPairStatus(db, wiki, "ACTIVE");
  await insertIndexAttempts(db, wiki, [{ status: "success", docsIndexed: 120 }, { status: "in_progress", docsIndexed: 14 }]);
  await db.connectorCredentialPair.update({ where: { id: wiki }, data: { docsIndexed: 134 } });
  const tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk", access: "private" });
  await setPairStatus(db, tickets, "ACTIVE");
  // Five failed attempts in a row: a repeated error state.
  await insertIndexAttempts(db, tickets, Array.from({ length: 5 }, () => ({ status: "failed" as const })));
  await createTestPair(db, { name: "Sales drive", source: "google_drive", access: "sync" });
});
const { rest, waitForText } = world;

/** A source's rows in the connectors table (a row group named by its header row). */
function sourceSection(name: string): Locator {
  return world.page.getByRole("table", { name: "Connectors" }).getByRole("rowgroup", { name, exact: true });
}

function pairRows(section: Locator): Locator {
  return section.locator("tr[data-cc-pair-id]");
}

/** Picks an option of a Mantine Select/MultiSelect by its label. */
async function choose(label: string, option: string, scope: Page | Locator = world.page): Promise<void> {
  await scope.getByRole("combobox", { name: label, exact: true }).click();
  await world.page.getByRole("option", { name: option, exact: true }).click();
}

describe("the admin console", () => {
  it("sends a visitor to sign in, refuses a bad key, and signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto("/admin/connectors");
    await world.page.waitForURL(/\/admin\/sign-in/);
    await world.browser.screenshot("sign-in");

    await world.page.getByLabel("API key").fill("svc_not-a-real-key");
    await world.page.getByRole("button", { name: "Sign in" }).click();
    const refusal = world.page.getByRole("form", { name: "Sign in" }).getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/not valid/i);

    await world.page.getByLabel("API key").fill(adminKey);
    await world.page.getByRole("button", { name: "Sign in" }).click();
    await world.page.waitForURL(/\/admin\/connectors/);
    expect(await world.page.getByTestId("session-name").textContent()).toBe("Ops admin");
  });

  it("lists pairs by source with summaries, filters them, and pages one source", { timeout: UI_TIMEOUT }, async () => {
    const web = sourceSection("Web");
    await web.waitFor();
    expect(await pairRows(web).count()).toBe(10);
    expect(await world.page.getByTestId("summary-web").textContent()).toContain(`${WEB_PAIRS} connectors`);
    // Error and in-progress states stand out.
    await expect(sourceSection("Zendesk").getByText("Repeated errors").isVisible()).resolves.toBe(true);
    await expect(sourceSection("Confluence").getByText("Indexing", { exact: true }).isVisible()).resolves.toBe(true);
    await world.browser.screenshot("connectors");

    await web.getByRole("button", { name: "Page 2" }).click();
    await world.page.waitForURL(/page\.web=2/);
    // Newest first: the second page holds the oldest pairs.
    await waitForText("the second page of web pairs", web, (text) => text.includes("Web crawl 01") && !text.includes("Web crawl 13"));
    expect(await pairRows(web).count()).toBe(WEB_PAIRS - 10);

    // A filter narrows every source and starts paging over; it lives in the URL, so a reload keeps it.
    await choose("Access type", "private");
    await world.page.waitForURL(/access=private/);
    await waitForText("only private pairs", world.page.locator("main"), (text) => text.includes("Support tickets") && !text.includes("Engineering wiki"));
    expect(world.page.url()).not.toContain("world.page.web");
    expect(await pairRows(sourceSection("Web")).count()).toBe(Math.floor(WEB_PAIRS / 3));

    await world.page.getByLabel("Name contains").fill("crawl 06");
    await world.page.waitForURL(/name=crawl/);
    await waitForText("one matching pair", sourceSection("Web"), (text) => text.includes("Web crawl 06") && !text.includes("Web crawl 03"));
    await world.page.reload();
    await waitForText("the filters after a reload", sourceSection("Web"), (text) => text.includes("Web crawl 06") && !text.includes("Web crawl 03"));
    expect(await pairRows(sourceSection("Web")).count()).toBe(1);
    expect(await world.page.getByLabel("Name contains").inputValue()).toBe("crawl 06");

    await world.page.getByRole("button", { name: "Clear filters" }).first().click();
    await waitForText("every source again", world.page.locator("main"), (text) => text.includes("Engineering wiki") && text.includes("Sales drive"));
  });

  let newPairId = 0;

  it("creates a pair in the form and opens its page", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("link", { name: "New connector" }).click();
    await world.page.waitForURL(/\/admin\/connectors\/new/);
    const form = world.page.getByRole("form", { name: "New connector-credential pair" });
    await form.getByRole("textbox", { name: /^Name/ }).fill("Release notes");
    await form.getByRole("combobox", { name: "Source" }).fill("ingestion");
    await world.page.getByRole("option", { name: "Ingestion API (ingestion_api)" }).click();
    await form.getByRole("radio", { name: "public" }).check();
    await world.browser.screenshot("connector-new");
    await form.getByRole("button", { name: "Create connector" }).click();

    await world.page.waitForURL(/\/admin\/connectors\/\d+$/);
    newPairId = Number(new URL(world.page.url()).pathname.split("/").at(-1));
    const stored = await world.database.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: newPairId }, include: { connector: true } });
    expect(stored).toMatchObject({ name: "Release notes", accessType: "public", status: "SCHEDULED" });
    expect(stored.connector.source).toBe("ingestion_api");
    await world.page.getByRole("heading", { name: /Release notes/ }).waitFor();
  });

  it("shows documents ingested through REST being counted in the open listing, without a reload", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto("/admin/connectors?name=Release");
    const section = sourceSection("Ingestion API");
    const row = pairRows(section).filter({ hasText: "Release notes" });
    await row.waitFor();
    expect(await row.getByTestId("docs-indexed").textContent()).toBe("0");
    expect(await row.textContent()).toContain("Scheduled");

    const documents = [
      { id: "notes/2024/q1", semantic_identifier: "Release notes Q1", text: "The quarterly release adds the reindexing dashboard." },
      { id: "notes/2024/q2", semantic_identifier: "Release notes Q2", text: "Faster search snippets and a calmer pager." },
      { id: "notes/2024/q3", semantic_identifier: "Release notes Q3", text: "Uploads of images for image sections." },
    ];
    for (const document of documents) {
      const response = await rest("POST", "/svc-api/ingestion", adminKey, {
        document: { id: document.id, semantic_identifier: document.semantic_identifier, sections: [{ text: document.text, link: `https://notes.example/${document.id}` }], metadata: { team: "platform" } },
        cc_pair_id: newPairId,
      });
      expect(response.status).toBe(200);
    }

    // The page refreshes itself: the count reaches 3 and the pair leaves Scheduled.
    await waitForText("three documents indexed", row.getByTestId("docs-indexed"), (text) => text === "3");
    await waitForText("the pair active", row, (text) => text.includes("Active") && !text.includes("Scheduled"));
    await world.browser.screenshot("connectors-live");

    await row.getByRole("link", { name: "Release notes" }).click();
    await world.page.waitForURL(new RegExp(`/admin/connectors/${newPairId}$`));
    await waitForText("the pair's count", world.page.getByTestId("pair-docs-indexed"), (text) => text === "3");
    await world.page.getByRole("table", { name: "Index attempts" }).waitFor();
    await waitForText("the pair's documents", world.page.getByRole("table", { name: "Documents of this connector" }), (text) => text.includes("Release notes Q2"));
    await world.page.getByRole("figure", { name: "Documents indexed per attempt over time" }).locator("svg").first().waitFor();
    await world.browser.screenshot("connector-detail");
  });

  it("pauses, resumes and renames a pair, and deletes another, each after confirming", { timeout: UI_TIMEOUT }, async () => {
    const heading = world.page.getByRole("heading", { level: 1 });
    const main = world.page.getByRole("main");
    const dialog = world.page.getByRole("dialog");
    const status = async () => (await world.database.db.connectorCredentialPair.findUniqueOrThrow({ where: { id: newPairId } })).status;

    await main.getByRole("button", { name: "Pause" }).click();
    await dialog.getByRole("button", { name: "Pause" }).click();
    await waitForText("the paused badge", heading, (text) => text.includes("Paused"));
    expect(await status()).toBe("PAUSED");

    await main.getByRole("button", { name: "Resume" }).click();
    await dialog.getByRole("button", { name: "Resume" }).click();
    await waitForText("the active badge", heading, (text) => text.includes("Active"));
    expect(await status()).toBe("ACTIVE");

    await main.getByRole("button", { name: "Rename" }).click();
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Release notes (prod)");
    await dialog.getByRole("button", { name: "Save" }).click();
    await waitForText("the new name", heading, (text) => text.includes("Release notes (prod)"));

    const doomed = await world.database.db.connectorCredentialPair.findFirstOrThrow({ where: { name: "Web crawl 01" } });
    await world.page.goto(`/admin/connectors/${doomed.id}`);
    await main.getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete connector" }).waitFor();
    await world.browser.screenshot("connector-delete-confirm");
    await dialog.getByRole("button", { name: "Delete connector" }).click();
    await world.page.waitForURL(/\/admin\/connectors$/);
    // DELETING until the deletion job removes it; the listing leaves it out either way.
    expect((await world.database.db.connectorCredentialPair.findUnique({ where: { id: doomed.id } }))?.status ?? "gone").toMatch(/DELETING|gone/);
    await waitForText("the web pairs without it", sourceSection("Web"), (text) => text.includes(`${WEB_PAIRS - 1} connectors`));
  });

  it("searches the index with highlighted snippets and opens a document", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("link", { name: /Documents/ }).first().click();
    await world.page.waitForURL(/\/admin\/documents$/);
    await world.page.getByRole("searchbox", { name: "Search" }).fill("search snippets");
    await world.page.getByRole("button", { name: "Search", exact: true }).click();
    await world.page.waitForURL(/q=search/);
    const result = world.page.getByRole("article", { name: "Release notes Q2" });
    await result.waitFor();
    expect(await result.locator("mark").allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/search/i)]));
    await world.browser.screenshot("documents-search");

    await result.getByRole("link", { name: "Release notes Q2" }).click();
    // The id holds slashes: it travels as one encoded path segment.
    await world.page.waitForURL(/\/admin\/documents\/notes%2F2024%2Fq2$/);
    await world.page.getByRole("heading", { name: /Release notes Q2/ }).waitFor();
    await waitForText("the indexed status", world.page.getByRole("heading", { name: /Release notes Q2/ }), (text) => text.includes("indexed"));
    expect(await world.page.getByText("index up to date").isVisible()).toBe(true);
    await world.page.getByRole("tab", { name: /Chunks/ }).click();
    await world.page.getByText("Faster search snippets and a calmer pager.").first().waitFor();
    await world.browser.screenshot("document-detail");
  });

  it("shows indexing health", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("link", { name: /Indexing health/ }).click();
    await world.page.waitForURL(/\/admin\/health$/);
    await world.page.getByRole("figure", { name: "Documents indexed and rebuilt per minute over the last hour" }).locator("svg").first().waitFor();
    await waitForText("the last hour's count", world.page.getByTestId("indexed-last-hour"), (text) => text === "3 indexed");
    await world.browser.screenshot("health");
  });

  it("creates a key shown once, and revokes it: REST answers 401 from then on", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("link", { name: /API keys/ }).click();
    await world.page.waitForURL(/\/admin\/keys$/);
    const form = world.page.getByRole("form", { name: "Create an API key" });
    await form.getByRole("textbox", { name: /^Name/ }).fill("nightly-import");
    await form.getByRole("button", { name: "Create key" }).click();
    const key = (await world.page.getByTestId("new-api-key").textContent())?.trim() ?? "";
    expect(key).toMatch(/^svc_/);
    expect((await rest("GET", "/svc-api/ingestion?limit=1", key)).status).toBe(200);
    await world.page.getByRole("table", { name: "API keys" }).getByText("nightly-import").waitFor();
    await world.browser.screenshot("keys");

    await world.page.getByRole("button", { name: "Revoke nightly-import" }).click();
    await world.page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await world.page.getByRole("table", { name: "API keys" }).locator("tr", { hasText: "nightly-import" }).getByText("revoked").waitFor();
    expect((await rest("GET", "/svc-api/ingestion?limit=1", key)).status).toBe(401);
  });

  it("uploads an image and lists its file_id", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("link", { name: /Uploads/ }).click();
    await world.page.waitForURL(/\/admin\/uploads$/);
    await world.page.locator('input[type="file"]').setInputFiles({ name: "pixel.png", mimeType: "image/png", buffer: PIXEL_PNG });
    await world.page.getByRole("button", { name: "Upload", exact: true }).click();
    const stored = await waitFor("the stored upload", () => world.database.db.uploadedFile.findFirst({ where: { name: "pixel.png" } }).then((file) => file ?? undefined));
    await world.page.getByRole("table", { name: "Recent uploads" }).getByText(stored.fileId).waitFor();
    await world.browser.screenshot("uploads");
  });

  it("signs out: the console sends the browser back to sign in", { timeout: UI_TIMEOUT }, async () => {
    await world.page.getByRole("button", { name: "Sign out" }).click();
    await world.page.waitForURL(/\/admin\/sign-in/);
    await world.page.goto("/admin/keys");
    await world.page.waitForURL(/\/admin\/sign-in/);
    expect(await world.database.db.adminSession.count({ where: { revokedAt: null } })).toBe(0);
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
