import { createTestPair } from "@svc/core/testing";
import { freezePostgres, waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { useOwnPostgres } from "./testing/own-postgres";
import { expectConsistentIndex, indexedProgress, ingestMany, spawnWorker } from "./testing/worker-process";

// A database that is up but does not answer (decisions.md "Limits and overload"): every process of
// this file's own PostgreSQL is stopped with SIGSTOP while the worker indexes, then resumed.
const DOCUMENTS = 1_000;

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
