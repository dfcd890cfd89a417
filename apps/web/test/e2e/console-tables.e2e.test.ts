// The console's tables (issue 15, point 8), in a real browser on the production build with a real
// indexing worker: one connectors table across sources, grouped per source, sorted and filtered with
// its state in the URL (a reload keeps it), counts written with agreeing nouns, and the connectors,
// pair and health pages usable at a phone's 390 px: nothing sticks out of the page or is cut short.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { insertIndexAttempts, setPairStatus } from "../connectors";
import { installPoisonTrigger, POISON } from "../trpc/poison";
import { signIn, useConsoleWorld } from "./console-helpers";
import { layoutProblems } from "./layout-check";

const UI_TIMEOUT = 90_000;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let adminKey = "";
let tickets = 0;
/** Each pair's documents, `[id, text]`, ingested once the service runs. */
const documents = new Map<number, [id: string, text: string][]>();

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  const engineering = await createTestPair(db, { name: "Engineering wiki", source: "confluence" });
  const flaky = await createTestPair(db, { name: "Flaky wiki", source: "confluence", access: "private" });
  const design = await createTestPair(db, { name: "Design wiki", source: "confluence" });
  tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  const repo = await createTestPair(db, { name: "Product repo", source: "github" });
  const drive = await createTestPair(db, { name: "Shared drive", source: "google_drive" });
  const help = await createTestPair(db, { name: "Help center", source: "zendesk" });
  await setPairStatus(db, flaky, "ACTIVE");
  await insertIndexAttempts(db, flaky, Array.from({ length: 5 }, () => ({ status: "failed" as const })));
  await installPoisonTrigger(db);
  documents.set(engineering, [
    ["wiki-deploy", "How we deploy."],
    ["wiki-oncall", "The on-call rota."],
    ["wiki-style", "Our coding style."],
  ]);
  documents.set(design, [["design-colors", "The color palette."]]);
  documents.set(tickets, [
    ["ticket-ok-1", "The printer is fixed."],
    ["ticket-ok-2", "Password reset done."],
    ["ticket-bad-1", `Contains a ${POISON}.`],
  ]);
  documents.set(repo, [
    ["repo-readme", "README of the product."],
    ["repo-contributing", "How to contribute."],
  ]);
  documents.set(drive, [["drive-budget", "Budget 2026."]]);
  documents.set(help, [["help-faq", "Frequently asked questions."]]);
});

const { waitForText } = world;
let page: Page;

// Ingested over REST as a script does; the worker indexes them (the poisoned one fails).
beforeAll(async () => {
  page = world.page;
  for (const [ccPairId, pairDocuments] of documents) await world.ingestTickets(adminKey, ccPairId, pairDocuments);
});

function connectorsTable(): Locator {
  return page.getByRole("table", { name: "Connectors" });
}

/** The sources of the table's row groups, top to bottom. */
async function sourceOrder(): Promise<string[]> {
  return connectorsTable().locator("tbody").evaluateAll((groups) => groups.map((group) => group.getAttribute("data-source") ?? ""));
}

/** The pair names of one source's rows, top to bottom. */
async function namesIn(source: string): Promise<string[]> {
  return connectorsTable()
    .locator(`tbody[data-source="${source}"] tr[data-cc-pair-id] td:first-child a`)
    .allTextContents();
}

async function allNames(): Promise<string[]> {
  return connectorsTable().locator("tr[data-cc-pair-id] td:first-child a").allTextContents();
}

/** Waits until the table shows exactly these names (in this order) for the source. */
async function waitForNames(what: string, source: string, expected: string[]): Promise<void> {
  let seen: string[] = [];
  await waitFor(
    what,
    async () => {
      seen = await namesIn(source);
      return JSON.stringify(seen) === JSON.stringify(expected) ? true : undefined;
    },
    { timeoutMs: 30_000, describe: () => `seen ${JSON.stringify(seen)}` },
  );
}

async function sortBy(label: string): Promise<void> {
  await connectorsTable().getByRole("button", { name: new RegExp(`^Sort by ${label}`) }).click();
}

/** Picks an option of a Mantine Select/MultiSelect by its label. */
async function choose(label: string, option: string): Promise<void> {
  await page.getByRole("combobox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
  await page.keyboard.press("Escape");
}

describe("the console's tables", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await page.setViewportSize(DESKTOP);
    await signIn(page, adminKey);
  });

  it("shows every source in one table, grouped per source, with its columns aligned", { timeout: UI_TIMEOUT }, async () => {
    await page.goto("/admin/connectors");
    await waitForText("the failed total", page.getByTestId("failed-documents-total"), (text) => text === "1");
    expect(await page.getByRole("table").count()).toBe(1);
    expect(await sourceOrder()).toEqual(["confluence", "github", "google_drive", "zendesk"]);
    // One header row for all sources: a cell of any group starts where its column's header does.
    const headerLeft = await connectorsTable().getByRole("columnheader", { name: /Documents/ }).evaluate((cell) => cell.getBoundingClientRect().left);
    for (const source of ["confluence", "zendesk"]) {
      const cellLeft = await connectorsTable()
        .locator(`tbody[data-source="${source}"] tr[data-cc-pair-id]`)
        .first()
        .getByTestId("docs-indexed")
        .evaluate((cell) => cell.getBoundingClientRect().left);
      expect(cellLeft).toBeCloseTo(headerLeft, 0);
    }
    // Numbers are right-aligned.
    expect(await connectorsTable().getByTestId("docs-indexed").first().evaluate((cell) => getComputedStyle(cell).textAlign)).toBe("right");
    await waitForText("the ticket's failed document", page.locator(`tr[data-cc-pair-id="${tickets}"]`).getByTestId("pair-failed-documents"), (text) => text === "1");
  });

  it("writes counts with agreeing nouns: 1 document, 2 documents", { timeout: UI_TIMEOUT }, async () => {
    await waitForText("the drive's summary", page.getByTestId("summary-google_drive"), (text) => text.includes("1 document indexed"));
    expect(await page.getByTestId("summary-google_drive").textContent()).toMatch(/^1 connector · 1 active · 1 public · 1 document indexed$/);
    await waitForText("the wikis' summary", page.getByTestId("summary-confluence"), (text) => text.includes("4 documents indexed"));
    expect(await page.getByTestId("summary-confluence").textContent()).toMatch(/^3 connectors · 3 active · 2 public · 4 documents indexed$/);
    expect(await page.getByTestId("summary-github").textContent()).toContain("2 documents indexed");
    expect(await page.locator("main").textContent()).not.toMatch(/\b1 (documents|connectors|sources)\b|\(s\)/);
  });

  it("sorts by a column, within each source, and the sources themselves", { timeout: UI_TIMEOUT }, async () => {
    // Without a sort: newest pair first.
    expect(await namesIn("confluence")).toEqual(["Design wiki", "Flaky wiki", "Engineering wiki"]);

    await sortBy("Documents");
    await page.waitForURL(/sort=-docs_indexed/);
    await waitForNames("the wikis by documents, most first", "confluence", ["Engineering wiki", "Design wiki", "Flaky wiki"]);
    expect(await connectorsTable().getByRole("columnheader", { name: /Documents/ }).getAttribute("aria-sort")).toBe("descending");
    await sortBy("Documents");
    await page.waitForURL(/sort=docs_indexed/);
    await waitForNames("the wikis by documents, fewest first", "confluence", ["Flaky wiki", "Design wiki", "Engineering wiki"]);

    await sortBy("Name");
    await page.waitForURL(/sort=name/);
    await waitForNames("the wikis by name", "confluence", ["Design wiki", "Engineering wiki", "Flaky wiki"]);

    await sortBy("Source");
    await page.waitForURL(/sort=source/);
    await sortBy("Source");
    await page.waitForURL(/sort=-source/);
    await waitFor("the sources Z to A", async () => ((await sourceOrder())[0] === "zendesk" ? true : undefined));
    expect(await sourceOrder()).toEqual(["zendesk", "google_drive", "github", "confluence"]);

    // Failed documents, most first: the tickets (one failed) lead the newer help center (none).
    expect(await namesIn("zendesk")).toEqual(["Help center", "Support tickets"]);
    await sortBy("Failed");
    await page.waitForURL(/sort=-failed/);
    await waitForNames("the Zendesk pairs by failed documents", "zendesk", ["Support tickets", "Help center"]);
    // Ties keep the default order (newest first).
    expect(await namesIn("confluence")).toEqual(["Design wiki", "Flaky wiki", "Engineering wiki"]);
    await world.browser.screenshot("tables-sorted");
  });

  it("filters by name, source and last attempt; a reload keeps the sort and the filters", { timeout: UI_TIMEOUT }, async () => {
    await sortBy("Name");
    await page.waitForURL(/sort=name/);
    await page.getByLabel("Name contains").fill("wiki");
    await page.waitForURL(/name=wiki/);
    await waitFor("only the wikis", async () => ((await sourceOrder()).join() === "confluence" ? true : undefined));
    expect(await allNames()).toEqual(["Design wiki", "Engineering wiki", "Flaky wiki"]);

    await choose("Last attempt", "Failed");
    await page.waitForURL(/status=failed/);
    await waitForNames("the failing wiki", "confluence", ["Flaky wiki"]);

    await page.reload();
    await waitForNames("the failing wiki after a reload", "confluence", ["Flaky wiki"]);
    expect(await allNames()).toEqual(["Flaky wiki"]);
    expect(await page.getByLabel("Name contains").inputValue()).toBe("wiki");
    expect(await connectorsTable().getByRole("columnheader", { name: /Name/ }).getAttribute("aria-sort")).toBe("ascending");

    await page.getByRole("button", { name: "Clear filters" }).first().click();
    await waitFor("every source again", async () => ((await sourceOrder()).length === 4 ? true : undefined));
    // Clearing the filters keeps the order.
    expect(await namesIn("confluence")).toEqual(["Design wiki", "Engineering wiki", "Flaky wiki"]);
    expect(page.url()).toContain("sort=name");

    await choose("Source", "Zendesk");
    await page.waitForURL(/source=zendesk/);
    await waitFor("only Zendesk", async () => ((await sourceOrder()).join() === "zendesk" ? true : undefined));
    expect(await allNames()).toEqual(["Help center", "Support tickets"]);
    await page.reload();
    await waitFor("only Zendesk after a reload", async () => ((await allNames()).join() === "Help center,Support tickets" ? true : undefined));
    expect(await sourceOrder()).toEqual(["zendesk"]);
  });

  it("fits a 390 px screen: nothing on the connectors, pair and health pages overflows or is cut", { timeout: UI_TIMEOUT }, async () => {
    await page.setViewportSize(PHONE);
    await page.goto("/admin/connectors");
    await waitForText("the failed total", page.getByTestId("failed-documents-total"), (text) => text === "1");
    await connectorsTable().locator("tr[data-cc-pair-id]").nth(5).waitFor();
    expect(await layoutProblems(page)).toEqual([]);
    await world.browser.screenshot("tables-connectors-390");

    await page.goto(`/admin/connectors/${tickets}`);
    await waitForText("the pair's failed count", page.getByTestId("pair-failed-documents"), (text) => text === "1");
    await page.getByRole("table", { name: "Documents of this connector" }).locator("tbody tr").nth(2).waitFor();
    expect(await layoutProblems(page)).toEqual([]);
    await world.browser.screenshot("tables-pair-390");

    await page.goto("/admin/health");
    await waitForText("the failed documents tile", page.getByTestId("failed-documents-tile"), (text) => text === "1");
    expect(await layoutProblems(page)).toEqual([]);
    await world.browser.screenshot("tables-health-390");

    // The navigation opens and fits too.
    await page.getByRole("button", { name: "Toggle navigation" }).click();
    await page.getByRole("link", { name: /Connectors/ }).waitFor();
    // The navbar slides in from the left: measured mid-slide (a loaded machine), it reads as cut.
    const navbar = page.locator(".mantine-AppShell-navbar");
    await waitFor("the navigation to finish sliding in", async () => (((await navbar.boundingBox())?.x ?? -1) >= 0 ? true : undefined));
    expect(await layoutProblems(page)).toEqual([]);
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
