import { createTestPair } from "@svc/core/testing";
import { freezePostgres, waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { useOwnPostgres } from "./testing/own-postgres";
import { expectConsistentIndex, indexedProgress, ingestMany, spawnWorker } from "./testing/worker-process";

// A database that is up but does not answer (decisions.md "Limits and overload"): every process of
// this file's own PostgreSQL is stopped with SIGSTOP while the worker indexes, then resumed.
const DOCUMENTS = 1_000;
/** How long the freeze is held once the worker noticed it. */
const PAUSED_MS = 5_000;

const own = useOwnPostgres("svc-worker-stall-pg-");

describe("the worker on a database that stops answering", () => {
  it("stays up, pauses while it lasts, and resumes by itself: every document indexed once", async () => {
    const { db, boss, dataDir } = own;
    if (!own.server) throw new Error("no server");
    const pair = await createTestPair(db, { name: "Stall" });
    const ids = Array.from({ length: DOCUMENTS }, (_, index) => `stall-${String(index).padStart(5, "0")}`);
    await ingestMany({ db, boss }, ids.map((id) => ({ id, text: `text of ${id}`, ccPairId: pair })));

    own.worker = spawnWorker(own.server.databaseUrl);
    const running = own.worker;
    await waitFor("the worker to index some documents", async () => ((await indexedProgress(db)).indexed >= DOCUMENTS / 10 ? true : undefined), {
      timeoutMs: 60_000,
      describe: running.output,
    });

    const thaw = await freezePostgres(dataDir);
    try {
      // The worker's pool notices by itself and fails fast from then on.
      await waitFor("the worker to find the database unanswering", () => (running.output().includes("the database does not answer") ? true : undefined), {
        timeoutMs: 15_000,
        describe: running.output,
      });
      expect(running.alive()).toBe(true);
      // Its pollers pause while it lasts: the webhook sender (a tick every 200 ms) fails a tick or two
      // before its pool's breaker opens, then waits; pg-boss's polls fail at their checkout deadline,
      // one line each. Held a while to see it.
      let meanwhile = "";
      const keep = (chunk: Buffer) => (meanwhile += chunk.toString());
      running.child.stdout?.on("data", keep);
      running.child.stderr?.on("data", keep);
      await new Promise((resolve) => setTimeout(resolve, PAUSED_MS));
      running.child.stdout?.off("data", keep);
      running.child.stderr?.off("data", keep);
      // The main pool's breaker may open first: the sender's own may still fail its one tick after it.
      expect((meanwhile.match(/webhook delivery tick failed/g) ?? []).length, meanwhile).toBeLessThanOrEqual(1);
      expect(meanwhile, "a poll's failure is one line, not a stack").not.toMatch(/\[pg-boss\] Error/);
    } finally {
      thaw();
    }
    await waitFor("the worker to find the database again", () => (running.output().includes("the database answers again") ? true : undefined), {
      timeoutMs: 15_000,
      describe: running.output,
    });

    await waitFor(
      "every document indexed",
      async () => {
        const progress = await indexedProgress(db);
        return progress.indexed === DOCUMENTS ? progress : undefined;
      },
      { timeoutMs: 100_000, retryOnError: true, describe: running.output },
    );
    expect(running.alive()).toBe(true);
    await expectConsistentIndex(db, [], "");
    expect(await running.stop()).toBe(0);
  }, 170_000);
});
