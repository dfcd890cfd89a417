// Index rebuilds in the console (issue 15, points 1 and 7), in a real browser on the production build
// with a real indexing worker: a rebuild started from the health page keeps the failures it finds
// (the pair stays "With errors", its failed document counted, the last rebuild's result says so), and
// a running rebuild is canceled from the health page after a confirmation, its attempts reading
// `canceled` on the pair's page. Indexing fails for real: a trigger rejects chunks holding a word.
// The rebuild's job runs in this process (the test worker consumes indexing jobs only), so the test
// decides how far each rebuild gets before it looks.
import { runIndexRebuild, startJobQueue, type PgBoss } from "@svc/core";
import { createTestKey, createTestPair, testSearchIndex } from "@svc/core/testing";
import { createTestDatabase, waitFor, type TestDatabase } from "@svc/db/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "../production-server";
import { installPoisonTrigger, POISON } from "../trpc/poison";
import { startTestWorker, type TestWorker } from "../worker";
import { launchBrowser, type TestBrowser } from "./browser";
import { consoleHelpers, signIn } from "./console-helpers";

const UI_TIMEOUT = 90_000;

let database: TestDatabase;
let server: ProductionServer;
let worker: TestWorker;
let boss: PgBoss;
let browser: TestBrowser;
let page: Page;
let adminKey = "";
let tickets = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  adminKey = await createTestKey(database.db, "admin", [], "Ops admin");
  tickets = await createTestPair(database.db, { name: "Support tickets", source: "zendesk" });
  await installPoisonTrigger(database.db);
  server = await startProductionServer({ databaseUrl: database.databaseUrl });
  worker = await startTestWorker({ db: database.db, databaseUrl: database.databaseUrl });
  boss = await startJobQueue({ databaseUrl: database.databaseUrl, role: "producer" });
  browser = await launchBrowser({ baseURL: server.base });
  page = browser.page;

  for (const [id, text] of [
    ["ticket-ok-1", "The printer is fixed."],
    ["ticket-ok-2", "Password reset done."],
    ["ticket-bad", `Contains a ${POISON}.`],
  ]) {
    const response = await rest("POST", "/svc-api/ingestion", adminKey, {
      document: { id, semantic_identifier: `Ticket ${id}`, sections: [{ text }], metadata: {} },
      cc_pair_id: tickets,
    });
    expect(response.status).toBe(200);
  }
  await waitFor("the tickets indexed or failed", async () =>
    (await database.db.document.count({ where: { indexingStatus: { in: ["indexed", "failed"] } } })) === 3 ? true : undefined,
  );
});

afterAll(async () => {
  await browser?.close();
  await boss?.stop({ graceful: false, close: true });
  await worker?.stop();
  await server?.stop();
  await database?.drop();
});

const { rest, waitForText } = consoleHelpers(() => server);

/** The generation a rebuild is building; fails when none is. */
async function buildingGeneration(): Promise<number> {
  const building = await database.db.indexGeneration.findFirst({ where: { status: "building" }, select: { id: true } });
  if (!building) throw new Error("no rebuild is building");
  return building.id;
}

/** Starts a rebuild from the health page's dialog and waits until the page shows it building. */
async function startRebuildInConsole(): Promise<number> {
  await page.goto("/admin/health");
  await page.getByRole("button", { name: "Start a rebuild" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Start rebuild" }).click();
  await waitForText("the rebuild building", page.getByRole("region", { name: "Index rebuild" }), (text) => text.includes("documents (0%) into generation #"));
  return buildingGeneration();
}

describe("index rebuilds in the console", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(page, adminKey);
  });

  it("a finished rebuild keeps the failures: the pair stays With errors, the failed document counted", { timeout: UI_TIMEOUT }, async () => {
    await page.goto("/admin/connectors");
    const row = page.locator(`tr[data-cc-pair-id="${tickets}"]`);
    await waitForText("the pair's failed badge", row.getByTestId("pair-failed-documents"), (text) => text === "1");
    await waitForText("the pair's last attempt", row, (text) => text.includes("With errors"));

    const generationId = await startRebuildInConsole();
    expect(await runIndexRebuild({ index: testSearchIndex(), db: database.db, boss, generationId })).toEqual({
      swapped: true,
      docsDone: 2,
      docsFailed: 1,
    });
    await waitForText("the last rebuild's result", page.getByTestId("last-rebuild"), (text) =>
      text.includes(`generation #${generationId}`) && text.includes("swapped in") && text.includes("2 documents indexed"),
    );
    expect(await page.getByTestId("last-rebuild-failed").textContent()).toBe("1 failed");
    await waitForText("the failed documents tile", page.getByTestId("failed-documents-tile"), (text) => text === "1");
    await browser.screenshot("rebuild-finished-health");

    await page.goto("/admin/connectors");
    await waitForText("the pair still With errors", row, (text) => text.includes("With errors"));
    await waitForText("the pair's failed badge", row.getByTestId("pair-failed-documents"), (text) => text === "1");
    await waitForText("the listing's failed total", page.getByTestId("failed-documents-total"), (text) => text === "1");

    await page.goto(`/admin/connectors/${tickets}`);
    const attempts = page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");
    await waitForText("both attempts", page.getByRole("table", { name: "Index attempts" }).locator("tbody"), (text) => text.split("With errors").length === 3);
    expect(await attempts.count()).toBe(2);
    expect((await database.db.document.findUniqueOrThrow({ where: { id: "ticket-bad" } })).indexingStatus).toBe("failed");
    await browser.screenshot("rebuild-finished-pair");
  });

  it("cancels a running rebuild after a confirmation; its attempt reads canceled", { timeout: UI_TIMEOUT }, async () => {
    const generationId = await startRebuildInConsole();
    // One batch of the pass: the pair has an open attempt in the rebuild when it is canceled.
    await runIndexRebuild({ index: testSearchIndex(), db: database.db, boss, generationId, maxBatches: 1 });
    expect(await database.db.indexAttempt.findMany({ where: { generationId }, select: { status: true } })).toEqual([{ status: "in_progress" }]);

    // Dismissing the dialog cancels nothing.
    await page.getByRole("button", { name: "Cancel rebuild" }).click();
    const dialog = page.getByRole("dialog");
    await waitForText("the confirmation", dialog, (text) => text.includes(`Generation #${generationId} stops`));
    await browser.screenshot("rebuild-cancel-confirm");
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await database.db.indexGeneration.findUniqueOrThrow({ where: { id: generationId } })).status).toBe("building");

    await page.getByRole("button", { name: "Cancel rebuild" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel rebuild" }).click();
    await waitForText("the canceled rebuild", page.getByTestId("last-rebuild"), (text) =>
      text.includes(`generation #${generationId}`) && text.includes("canceled"),
    );
    await page.getByRole("button", { name: "Start a rebuild" }).and(page.locator(":not([disabled])")).waitFor();
    expect(await page.getByRole("progressbar", { name: "Rebuild progress" }).count()).toBe(0);
    expect((await database.db.indexGeneration.findUniqueOrThrow({ where: { id: generationId } })).status).toBe("canceled");
    await browser.screenshot("rebuild-canceled-health");

    await page.goto(`/admin/connectors/${tickets}`);
    const attempts = page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");
    await waitForText("the canceled attempt first", attempts.first(), (text) => text.includes("Canceled"));
    expect(await attempts.count()).toBe(3);
    await page.goto("/admin/connectors");
    await waitForText("the pair's last attempt canceled", page.locator(`tr[data-cc-pair-id="${tickets}"]`), (text) => text.includes("Canceled"));
    expect(browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
