// A pair's document list in a real browser (Debian's Chromium): the name/id search and the sortable
// columns are answered by the server (the list is paged there) and kept in the URL, so a reload and a
// shared link show the same list.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;
/** More than a page (20 rows), so that the order must come from the server to be right on page 1. */
const LOGS = Array.from({ length: 23 }, (_, index) => `log-${String(index + 1).padStart(2, "0")}`);
const MEMOS = ["memo-fog", "memo-tide"];

let adminKey = "";
let pairId = 0;

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Harbour admin");
  pairId = await createTestPair(db, { name: "Harbour logs", source: "web" });
});

/** The document ids of the table's rows, top to bottom. */
async function shownIds(): Promise<string[]> {
  return world.page
    .getByRole("table", { name: "Documents of this connector" })
    .locator("tr[data-document-id]")
    .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-document-id") ?? ""));
}

async function waitForIds(what: string, check: (ids: string[]) => boolean): Promise<string[]> {
  let ids: string[] = [];
  await expect
    .poll(async () => check((ids = await shownIds().catch(() => []))), { timeout: 30_000, message: `${what}; last seen ${ids.join(", ")}` })
    .toBe(true);
  return ids;
}

describe("a pair's documents", () => {
  it("searches by name or id and sorts by a column on the server, kept in the URL across a reload", { timeout: UI_TIMEOUT * 3 }, async () => {
    const { page } = world;
    // Each step waits on what the page shows; on a loaded machine a page takes longer than the default 20 s.
    world.browser.context.setDefaultTimeout(60_000);
    await world.ingestTickets(adminKey, pairId, [...LOGS, ...MEMOS].map((id) => [id, `Harbour record ${id}.`]));
    await signIn(page, adminKey);
    await page.goto(`/admin/connectors/${pairId}`);
    // By id, 20 a page: the memos are not on page 1.
    await waitForIds("the first page by id", (ids) => ids.length === 20 && ids[0] === "log-01");

    // Sorting by name, descending (a second click): the memos, last by id, come first.
    await page.getByRole("button", { name: "Sort by Document", exact: true }).click();
    await page.getByRole("button", { name: "Sort by Document (ascending)" }).click();
    await waitForIds("names Z→A", (ids) => ids.slice(0, 3).join() === "memo-tide,memo-fog,log-23");
    expect(await page.getByRole("columnheader", { name: /Sort by Document/ }).getAttribute("aria-sort")).toBe("descending");
    await page.waitForURL((url) => url.searchParams.get("sort") === "-name");

    // A search narrows the list on the server, in the chosen order.
    await page.getByLabel("Search documents").fill("MEMO");
    await waitForIds("the memos", (ids) => ids.join() === "memo-tide,memo-fog");
    await page.waitForURL((url) => url.searchParams.get("q") === "MEMO");
    await world.browser.screenshot("pair-documents-search");

    // A reload (and so a shared link) shows the same list, search box filled.
    await page.reload();
    await waitForIds("the memos after a reload", (ids) => ids.join() === "memo-tide,memo-fog");
    expect(await page.getByLabel("Search documents").inputValue()).toBe("MEMO");

    // By id again, then page 2 continues the order.
    await page.getByLabel("Search documents").fill("");
    await page.waitForURL((url) => !url.searchParams.has("q"));
    await page.getByRole("button", { name: "Sort by Id", exact: true }).click();
    await page.getByRole("button", { name: "Sort by Id (ascending)" }).click();
    await waitForIds("ids Z→A", (ids) => ids.length === 20 && ids[0] === "memo-tide" && ids[19] === "log-06");
    await page.getByRole("button", { name: "Next page" }).click();
    await waitForIds("page 2 by id Z→A", (ids) => ids.join() === "log-05,log-04,log-03,log-02,log-01");

    // A search that finds nothing says so.
    await page.getByLabel("Search documents").fill("no such record");
    await page.getByText("No documents of this pair have “no such record” in their name or id.").waitFor({ timeout: 30_000 });
    expect(world.browser.pageErrors).toEqual([]);
  });
});
