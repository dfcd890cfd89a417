import { createTestPair } from "@svc/core/testing";
import { startEmbeddedPostgres } from "@svc/db/embedded";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { THROWAWAY_POSTGRES_FLAGS, useOwnPostgres } from "./testing/own-postgres";
import { expectConsistentIndex, indexedProgress, ingestMany, spawnWorker } from "./testing/worker-process";

// The system PostgreSQL is shared and cannot be restarted from a test: this file runs its own.
const DOCUMENTS = 2_000;
const AFTER_RESTART = 200;

const own = useOwnPostgres("svc-restart-pg-");

describe("the worker across a PostgreSQL restart", () => {
  it("stays up, reconnects and indexes every document, those accepted before and after the restart", async () => {
    const { db, boss, dataDir } = own;
    if (!own.server) throw new Error("no server");
    const { databaseUrl, port } = own.server;
    const pairs: number[] = [];
    for (const name of ["Restart A", "Restart B"]) {
      pairs.push(await createTestPair(db, { name }));
    }
    const ids = Array.from({ length: DOCUMENTS }, (_, index) => `restart-${String(index).padStart(5, "0")}`);
    await ingestMany({ db, boss }, ids.map((id, index) => ({ id, text: `first text of ${id}`, ccPairId: pairs[index % pairs.length] })));

    own.worker = spawnWorker(databaseUrl);
    const running = own.worker;
    await waitFor(
      "the worker to index a tenth of the documents",
      async () => ((await indexedProgress(db)).indexed >= DOCUMENTS / 10 ? true : undefined),
      { timeoutMs: 60_000, describe: running.output },
    );

    // Fast shutdown: every connection is closed, transactions in flight are rolled back.
    await own.server.stop();
    own.server = undefined;
    expect(running.alive(), running.output()).toBe(true);
    own.server = await startEmbeddedPostgres({ dataDir, port, postgresFlags: THROWAWAY_POSTGRES_FLAGS });

    // Accepted after the restart: new versions of documents, and new documents.
    const updated = ids.slice(0, AFTER_RESTART);
    const added = Array.from({ length: AFTER_RESTART }, (_, index) => `restart-new-${index}`);
    await waitFor(
      "ingestion to work again",
      async () => {
        await ingestMany({ db, boss }, [...updated, ...added].map((id, index) => ({
          id,
          text: `second text of ${id}, written after the restart`,
          ccPairId: pairs[index % pairs.length],
        })));
        return true;
      },
      { timeoutMs: 30_000, retryOnError: true },
    );

    // Jobs in flight at the shutdown whose failure could not be recorded stay active until their
    // heartbeat lapses (about a minute); the others are retried at once.
    await waitFor(
      "every document indexed at its latest version",
      async () => {
        const progress = await indexedProgress(db);
        return progress.indexed === DOCUMENTS + AFTER_RESTART ? progress : undefined;
      },
      { timeoutMs: 100_000, retryOnError: true, describe: running.output },
    );
    expect(running.alive(), running.output()).toBe(true);

    await expectConsistentIndex(db, [...updated, ...added], "written after the restart");
    expect(await running.stop()).toBe(0);
  }, 170_000);
});
