// A pair's attempts read like runs (issue 15, point 5), in a real browser on the production build with
// a real indexing worker that groups attempts over a quiet period, as SVC_ATTEMPT_QUIET_SECONDS makes
// the worker do: a steady push stream of documents, indexed one job at a time, stays one attempt on the
// pair's page while it flows, and closes as one successful run counting every document once the pair
// has been quiet for the period.
import { closeQuietAttempts } from "@svc/core";
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;
const QUIET = { quietSeconds: 3 };
const STREAM = 12;

let adminKey = "";
let tickets = 0;

const world = useConsoleWorld(
  async (db) => {
    adminKey = await createTestKey(db, "admin", [], "Ops admin");
    tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  },
  { attemptWindow: QUIET },
);
const { waitForText } = world;

describe("a pair's index attempts in the console", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(world.page, adminKey);
  });

  it("shows a steady push stream as one attempt, closed as one run of all its documents once the pair is quiet", { timeout: UI_TIMEOUT }, async () => {
    // Each document is sent once the previous one is indexed, so each is its own job: without the
    // quiet period every one would be an attempt of its own.
    for (let index = 0; index < STREAM; index += 1) {
      await world.ingestTickets(adminKey, tickets, [[`stream-${index}`, `Ticket number ${index} of the stream.`]]);
    }
    await world.page.goto(`/admin/connectors/${tickets}`);
    const attempts = world.page.getByRole("table", { name: "Index attempts" }).locator("tbody tr");
    await waitForText("the open attempt", attempts.first(), (text) => text.includes("In progress") && text.includes(String(STREAM)));
    expect(await attempts.count()).toBe(1);

    // The worker's sweep closes a pair's attempt once it has been quiet for the period.
    await waitFor("the attempt closed after the quiet period", async () => ((await closeQuietAttempts(world.database.db, QUIET)) > 0 ? true : undefined), {
      timeoutMs: 30_000,
    });
    await world.page.reload();
    await waitForText("the closed run", attempts.first(), (text) => text.includes("Success") && text.includes(String(STREAM)));
    expect(await attempts.count()).toBe(1);
    const run = await world.database.db.indexAttempt.findMany({ where: { ccPairId: tickets }, select: { status: true, docsIndexed: true, docsFailed: true } });
    expect(run).toEqual([{ status: "success", docsIndexed: STREAM, docsFailed: 0 }]);
    await world.browser.screenshot("attempts-one-run");
  });
});
