// Index rebuilds in the console (issue 15, points 1 and 7), in a real browser on the production build
// with a real indexing worker: a rebuild started from the health page keeps the failures it finds
// (the pair stays "With errors", its failed document counted, the last rebuild's result says so), and
// a running rebuild is canceled from the health page after a confirmation, its attempts reading
// `canceled` on the pair's page. Indexing fails for real: a trigger rejects chunks holding a word.
// The rebuild's job runs in this process (the test worker consumes indexing jobs only), so the test
// decides how far each rebuild gets before it looks.
import { runIndexRebuild, startJobQueue, type PgBoss } from "@svc/core";
import { createTestKey, createTestPair, testSearchIndex } from "@svc/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPoisonTrigger, POISON } from "../trpc/poison";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;

let boss: PgBoss;
let adminKey = "";
let tickets = 0;

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  await installPoisonTrigger(db);
});
const { waitForText } = world;

beforeAll(async () => {
  boss = await startJobQueue({ databaseUrl: world.database.databaseUrl, role: "producer" });
  await world.ingestTickets(adminKey, tickets, [
    ["ticket-ok-1", "The printer is fixed."],
    ["ticket-ok-2", "Password reset done."],
    ["ticket-bad", `Contains a ${POISON}.`],
  ]);
});

afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
});

/** The generation a rebuild is building; fails when none is. */
async function buildingGeneration(): Promise<number> {
  const building = await world.database.db.indexGeneration.findFirst({ where: { status: "building" }, select: { id: true } });
  if (!building) throw new Error("no rebuild is building");
  return building.id;
}

/** Starts a rebuild from the health page's dialog and waits until the page shows it building. */
async function startRebuildInConsole(): Promise<number> {
  await world.page.goto("/admin/health");
  await world.page.getByRole("button", { name: "Start a rebuild" }).click();
  await world.page.getByRole("dialog").getByRole("button", { name: "Start rebuild" }).click();
  await waitForText("the rebuild building", world.page.getByRole("region", { name: "Index rebuild" }), (text) => text.includes("documents (0%) into generation #"));
  return buildingGeneration();
}

describe("index rebuilds in the console", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(world.page, adminKey);
  });

  it("a finished rebuild keeps the failures: the pair stays With errors, the failed document counted", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto("/admin/connectors");
    const row = world.page.locator(`tr[data-cc-pair-id="${tickets}"]`);
    await waitForText("the pair's failed badge", row.getByTestId("pair-failed-documents"), (text) => text === "1");
    await waitForText("the pair's last attempt", row, (text) => text.includes("With errors"));

    const generationId = await startRebuildInConsole();
    expect(await runIndexRebuild({ index: testSearchIndex(), db: world.database.db, boss, generationId })).toEqual({
      swapped: true,
      docsDone: 2,
      docsFailed: 1,
    });
    await waitForText("the last rebuild's result", world.page.getByTestId("last-rebuild"), (text) =>
      text.includes(`generation #${generationId}`) && text.includes("swapped in") && text.includes("2 documents indexed"),
    );
    expect(await world.page.getByTestId("last-rebuild-failed").textContent()).toBe("1 failed");
    await waitForText("the failed documents tile", world.page.getByTestId("failed-documents-tile"), (text) => text === "1");
    await world.browser.screenshot("rebuild-finished-health");

    await world.page.goto("/admin/connectors");
    await waitForText("the pair still With errors", row, (text) => text.includes("With errors"));
    await waitForText("the pair's failed badge", row.getByTestId("pair-failed-documents"), (text) => text === "1");
    await waitForText("the listing's failed total", world.page.getByTestId("failed-documents-total"), (text) => text === "1");

    await world.page.goto(`/admin/connectors/${tickets}`);
    const attempts = world.page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");
    await waitForText("both attempts", world.page.getByRole("table", { name: "Index attempts" }).locator("tbody"), (text) => text.split("With errors").length === 3);
    expect(await attempts.count()).toBe(2);
    expect((await world.database.db.document.findUniqueOrThrow({ where: { id: "ticket-bad" } })).indexingStatus).toBe("failed");
    await world.browser.screenshot("rebuild-finished-pair");
  });

  it("cancels a running rebuild after a confirmation; its attempt reads canceled", { timeout: UI_TIMEOUT }, async () => {
    const generationId = await startRebuildInConsole();
    // One batch of the pass: the pair has an open attempt in the rebuild when it is canceled.
    await runIndexRebuild({ index: testSearchIndex(), db: world.database.db, boss, generationId, maxBatches: 1 });
    expect(await world.database.db.indexAttempt.findMany({ where: { generationId }, select: { status: true } })).toEqual([{ status: "in_progress" }]);

    // Dismissing the dialog cancels nothing.
    await world.page.getByRole("button", { name: "Cancel rebuild" }).click();
    const dialog = world.page.getByRole("dialog");
    await waitForText("the confirmation", dialog, (text) => text.includes(`Generation #${generationId} stops`));
    await world.browser.screenshot("rebuild-cancel-confirm");
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await world.database.db.indexGeneration.findUniqueOrThrow({ where: { id: generationId } })).status).toBe("building");

    await world.page.getByRole("button", { name: "Cancel rebuild" }).click();
    await world.page.getByRole("dialog").getByRole("button", { name: "Cancel rebuild" }).click();
    await waitForText("the canceled rebuild", world.page.getByTestId("last-rebuild"), (text) =>
      text.includes(`generation #${generationId}`) && text.includes("canceled"),
    );
    await world.page.getByRole("button", { name: "Start a rebuild" }).and(world.page.locator(":not([disabled])")).waitFor();
    expect(await world.page.getByRole("progressbar", { name: "Rebuild progress" }).count()).toBe(0);
    expect((await world.database.db.indexGeneration.findUniqueOrThrow({ where: { id: generationId } })).status).toBe("canceled");
    await world.browser.screenshot("rebuild-canceled-health");

    await world.page.goto(`/admin/connectors/${tickets}`);
    const attempts = world.page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");
    await waitForText("the canceled attempt first", attempts.first(), (text) => text.includes("Canceled"));
    expect(await attempts.count()).toBe(3);
    await world.page.goto("/admin/connectors");
    await waitForText("the pair's last attempt canceled", world.page.locator(`tr[data-cc-pair-id="${tickets}"]`), (text) => text.includes("Canceled"));
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
