// Only safe links are links (issue 38): a URL that came with a document becomes an anchor in the
// console only for http, https and mailto; a data:, javascript: or file: URL shows as text that
// cannot be clicked, on the document's page (sections, chunks) and in search results. In a real
// browser on the production build, with a real indexing worker.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;
const DATA_URL = "data:text/html,<script>alert(document.cookie)</script>";
const SCRIPT_URL = "javascript:alert(1)";
const FILE_URL = "file:///etc/passwd";
const SAFE_URL = "https://wiki.example.com/runbook";

let adminKey = "";
let pair = 0;

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  pair = await createTestPair(db, { name: "Runbooks", source: "web" });
});

/** The hrefs of the page's anchors, as the browser resolved them. */
function anchorHrefs(page: Page): Promise<string[]> {
  return page.locator("a[href]").evaluateAll((anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
}

/** Whether an href leads anywhere but http(s) or mailto. */
const unsafe = (href: string) => !/^(https?|mailto):/.test(href);

beforeAll(async () => {
  const response = await world.rest("POST", "/svc-api/ingestion", adminKey, {
    document: {
      id: "links-doc",
      semantic_identifier: "Runbook with links",
      sections: [
        { text: "Quokka restart steps.", link: DATA_URL },
        { text: "Quokka escalation.", link: SCRIPT_URL },
        { text: "Quokka local copy.", link: FILE_URL },
        { text: "Quokka wiki page.", link: SAFE_URL },
      ],
      metadata: {},
    },
    cc_pair_id: pair,
  });
  expect(response.status).toBe(200);
  await waitFor("the document indexed", async () =>
    (await world.database.db.document.findUnique({ where: { id: "links-doc" } }))?.indexingStatus === "indexed" ? true : undefined,
  );
  await signIn(world.page, adminKey);
});

describe("links from documents", () => {
  it("shows a data:, javascript: or file: link as text and links only http(s) on the document's page", { timeout: UI_TIMEOUT }, async () => {
    const { page } = world;
    await page.goto("/admin/documents/links-doc");
    await page.getByRole("heading", { name: /Runbook with links/ }).waitFor();
    await page.getByText(DATA_URL).waitFor();
    for (const url of [DATA_URL, SCRIPT_URL, FILE_URL]) {
      const shown = page.getByText(url, { exact: true });
      expect(await shown.count()).toBe(1);
      expect(await shown.evaluate((element) => element.closest("a"))).toBeNull();
    }
    expect(await page.getByRole("link", { name: new RegExp(SAFE_URL) }).getAttribute("href")).toBe(SAFE_URL);
    expect((await anchorHrefs(page)).filter(unsafe)).toEqual([]);

    await page.getByRole("tab", { name: /Chunks/ }).click();
    await page.getByText("Quokka wiki page.").waitFor();
    expect((await anchorHrefs(page)).filter(unsafe)).toEqual([]);
    expect(await page.getByText(DATA_URL, { exact: true }).count()).toBeGreaterThan(0);
    await world.browser.screenshot("links-document");
  });

  it("shows a search result's data: source as text", { timeout: UI_TIMEOUT }, async () => {
    const { page } = world;
    await page.goto("/admin/documents?q=quokka");
    await page.getByRole("link", { name: "Runbook with links" }).waitFor();
    await page.getByText(DATA_URL, { exact: true }).waitFor();
    expect((await anchorHrefs(page)).filter(unsafe)).toEqual([]);
    await world.browser.screenshot("links-search");
  });
});
