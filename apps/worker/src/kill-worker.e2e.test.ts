import type { PgBoss } from "@svc/core";
import { createTestJobQueue, createTestPair, holdPairLocks, removeTestSearchIndex, type TestJobQueue } from "@svc/core/testing";
import type { Db } from "@svc/db";
import { waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectConsistentIndex, indexedProgress, ingestMany, spawnWorker, type WorkerProcess } from "./testing/worker-process";

const DOCUMENTS = 3_000;
const UPDATED = 300;

let queue: TestJobQueue;
let db: Db;
let boss: PgBoss;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  queue = await createTestJobQueue();
  ({ db, boss } = queue);
});
afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await queue.close();
  await removeTestSearchIndex();
});

describe("a worker killed with SIGKILL in the middle of indexing", () => {
  it("loses and duplicates nothing: a new worker indexes every accepted document at its latest version", async () => {
    const pairs: number[] = [];
    for (const name of ["Kill A", "Kill B", "Kill C"]) {
      pairs.push(await createTestPair(db, { name }));
    }
    const ids = Array.from({ length: DOCUMENTS }, (_, index) => `kill-${String(index).padStart(5, "0")}`);
    await ingestMany(
      { db, boss },
      ids.map((id, index) => ({ id, text: `original text of ${id}`, ccPairId: pairs[index % pairs.length] })),
    );

    const first = spawnWorker(queue.databaseUrl);
    workers.push(first);
    await waitFor(
      "the first worker to index a tenth of the documents",
      async () => ((await indexedProgress(db)).indexed >= DOCUMENTS / 10 ? true : undefined),
      { timeoutMs: 60_000, describe: first.output },
    );
    // New versions accepted while the worker runs: the index must end with their text.
    const updatedIds = ids.slice(0, UPDATED);
    await ingestMany(
      { db, boss },
      updatedIds.map((id, index) => ({ id, text: `rewritten zeppelin text of ${id}`, ccPairId: pairs[index % pairs.length] })),
    );

    const locks = await holdPairLocks(db, pairs);
    try {
      await waitFor(
        "a document transaction of the worker waiting half way",
        async () => {
          const [row] = await db.$queryRaw<{ waiting: number }[]>`
            SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
          return (row?.waiting ?? 0) > 0 ? true : undefined;
        },
        { timeoutMs: 30_000, describe: first.output },
      );
      await first.kill();
    } finally {
      await locks.release();
    }
    const atKill = await indexedProgress(db);
    expect(atKill.total).toBe(DOCUMENTS);
    expect(atKill.indexed).toBeLessThan(DOCUMENTS);
    // The dead worker's batches are still active, and their documents may show `indexing`.
    const [active] = await db.$queryRaw<{ jobs: number }[]>`
      SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = 'index-document' AND state = 'active'`;
    expect(active?.jobs).toBeGreaterThan(0);

    const second = spawnWorker(queue.databaseUrl);
    workers.push(second);
    // No other worker lives (the dead one's row is of this host, its process gone): the attempts it
    // left open, their pairs not drained, end interrupted as the new worker starts.
    await waitFor(
      "the killed worker's attempts interrupted",
      async () => ((await db.indexAttempt.count({ where: { ccPairId: { in: pairs }, status: "interrupted" } })) === pairs.length ? true : undefined),
      { timeoutMs: 30_000, describe: second.output },
    );
    // Its heartbeat lapsed, the dead worker's jobs are retried: within about a minute.
    await waitFor(
      "every document indexed at its latest version",
      async () => {
        const progress = await indexedProgress(db);
        return progress.indexed === DOCUMENTS ? progress : undefined;
      },
      { timeoutMs: 100_000, describe: () => `indexed so far: ${JSON.stringify(atKill)} at the kill\n${second.output()}` },
    );

    await expectConsistentIndex(db, updatedIds, "zeppelin");
    const [stale] = await db.$queryRaw<{ documents: number }[]>`
      SELECT count(DISTINCT document_id)::int AS documents FROM document_chunk
      WHERE document_id = ANY(${updatedIds}) AND content LIKE 'original text%'`;
    expect(stale?.documents).toBe(0);
    for (const ccPairId of pairs) {
      const pair = await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId } });
      expect(pair).toMatchObject({ docsIndexed: DOCUMENTS / pairs.length, status: "ACTIVE", lastAttemptStatus: "success" });
    }
    expect(await second.stop()).toBe(0);
  }, 170_000);
});
