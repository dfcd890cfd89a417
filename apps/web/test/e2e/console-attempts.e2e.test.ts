// A pair's index attempts read like runs (issue 15, point 5) and say only what is true (issue 39,
// point 3), in a real browser on the production build with a real indexing worker that keeps a push
// stream in one attempt over a quiet period, as SVC_ATTEMPT_QUIET_SECONDS makes the worker do: a steady
// push stream of documents, indexed one job at a time, is one attempt on the pair's page, closed as a
// successful run whenever the queue drains; the pair reads "Indexing" (its badge, "Indexing now" on the
// listing and on Indexing health, the REST listing) only while its documents are being indexed, and a
// push within the quiet period reopens the same attempt.
import { holdPairLocks, createTestKey, createTestPair, testIngestionBody } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 180_000;
// Far longer than a step of this file takes on a loaded machine.
const QUIET = { quietSeconds: 600 };
const STREAM = 12;
const BULK = 1_000;

let adminKey = "";
let tickets = 0;

const world = useConsoleWorld(
  async (db) => {
    adminKey = await createTestKey(db, "admin", [], "Ops admin");
    tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  },
  { attemptWindow: QUIET },
);
const { rest, waitForText } = world;

/** The pair's `in_progress` and latest attempt as the REST listing answers them. */
async function restState(): Promise<{ in_progress: boolean; last_status: string | null; latest_index_attempt_docs_indexed: number | null }> {
  const response = await rest("POST", "/manage/admin/connector/indexing-status", adminKey, { get_all_connectors: true });
  expect(response.status).toBe(200);
  const groups = (await response.json()) as { indexing_statuses: { cc_pair_id?: number; in_progress: boolean; last_status: string | null; latest_index_attempt_docs_indexed: number | null }[] }[];
  const row = groups.flatMap((group) => group.indexing_statuses).find((status) => status.cc_pair_id === tickets);
  if (!row) throw new Error("the pair is not listed");
  return { in_progress: row.in_progress, last_status: row.last_status, latest_index_attempt_docs_indexed: row.latest_index_attempt_docs_indexed };
}

/** What the console shows of the pair's indexing: the listing's row badge and "Indexing now", and Indexing health's. */
async function consoleIndexing(expected: "1" | "0"): Promise<void> {
  await world.page.goto("/admin/connectors");
  const row = world.page.locator(`tr[data-cc-pair-id="${tickets}"]`);
  await waitForText("the listing's Indexing now", world.page.getByTestId("pairs-indexing"), (text) => text === expected);
  await waitForText("the pair's row", row, (text) => text.includes("Indexing") === (expected === "1"));
  await world.page.goto("/admin/health");
  await waitForText("Indexing health's Indexing now", world.page.getByTestId("pairs-indexing-tile"), (text) => text === expected);
}

const attemptRows = () => world.page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");

describe("a pair's index attempts in the console", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(world.page, adminKey);
  });

  it("shows a steady push stream as one attempt, closed as one run of all its documents whenever the queue drains", { timeout: UI_TIMEOUT }, async () => {
    // Each document is sent once the previous one is indexed, so each is its own job: without the
    // quiet period every one would be an attempt of its own.
    for (let index = 0; index < STREAM; index += 1) {
      await world.ingestTickets(adminKey, tickets, [[`stream-${index}`, `Ticket number ${index} of the stream.`]]);
    }
    // Nothing is left to index: the run is closed at once, not after the quiet period.
    expect(await restState()).toEqual({ in_progress: false, last_status: "success", latest_index_attempt_docs_indexed: STREAM });
    await world.page.goto(`/admin/connectors/${tickets}`);
    await waitForText("the closed run", attemptRows().first(), (text) => text.includes("Success") && text.includes(String(STREAM)));
    expect(await attemptRows().count()).toBe(1);
    await consoleIndexing("0");
    const run = await world.database.db.indexAttempt.findMany({ where: { ccPairId: tickets }, select: { status: true, docsIndexed: true, docsFailed: true } });
    expect(run).toEqual([{ status: "success", docsIndexed: STREAM, docsFailed: 0 }]);
    await world.browser.screenshot("attempts-one-run");
  });

  it("reads Indexing everywhere only while documents are being indexed, in the same attempt reopened", { timeout: UI_TIMEOUT }, async () => {
    const [before] = await world.database.db.indexAttempt.findMany({ where: { ccPairId: tickets } });
    const ids = Array.from({ length: BULK }, (_, index) => `bulk-${String(index).padStart(4, "0")}`);
    const response = await rest("POST", "/svc-api/ingestion/batch", adminKey, {
      documents: ids.map((id) => testIngestionBody({ id, text: `Ticket ${id} about a printer.`, ccPairId: tickets })),
    });
    expect(response.status).toBe(200);
    await waitFor("the pair in progress", async () => ((await restState()).in_progress ? true : undefined), { timeoutMs: 60_000 });

    // The pair's row lock held: indexing stops half way, with documents left to index.
    const locks = await holdPairLocks(world.database.db, [tickets], UI_TIMEOUT);
    try {
      expect(await world.database.db.document.count({ where: { id: { in: ids }, indexingStatus: { in: ["queued", "indexing"] } } })).toBeGreaterThan(0);
      expect(await restState()).toMatchObject({ in_progress: true, last_status: "in_progress" });
      await consoleIndexing("1");
      await world.browser.screenshot("attempts-indexing-health");
      await world.page.goto(`/admin/connectors/${tickets}`);
      await waitForText("the reopened run", attemptRows().first(), (text) => text.includes("In progress"));
      expect(await attemptRows().count()).toBe(1);
      expect(await world.database.db.indexAttempt.findMany({ where: { ccPairId: tickets }, select: { id: true, status: true } })).toEqual([
        { id: before?.id, status: "in_progress" },
      ]);
    } finally {
      await locks.release();
    }

    await waitFor("every document indexed", async () =>
      (await world.database.db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } })) === BULK ? true : undefined,
    { timeoutMs: 120_000 });
    expect(await restState()).toEqual({ in_progress: false, last_status: "success", latest_index_attempt_docs_indexed: STREAM + BULK });
    await consoleIndexing("0");
    await world.page.goto(`/admin/connectors/${tickets}`);
    await waitForText("the run closed again", attemptRows().first(), (text) => text.includes("Success") && text.includes((STREAM + BULK).toLocaleString("en-US")));
    expect(await attemptRows().count()).toBe(1);
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
