import { listLiveWorkers, OPERATOR_PRINCIPAL, searchDocuments } from "@svc/core";
import { testSearchIndex, useTestJobQueue, waitForIndexed } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { WORKER_HEARTBEAT_MAX_AGE_SECONDS } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { indexRowInconsistencies, ingestMany, useWorkerProcess } from "./testing/worker-process";

// The index maintenance process (dist/maintain.js) beside a worker told to leave maintenance to it,
// as `svc start` runs them: the worker indexes, the maintenance process merges (the rows waiting for a
// merge are read from the current generation's table).
const queue = await useTestJobQueue();
const { db } = queue;
const start = useWorkerProcess(queue.databaseUrl);

/** Rows of the current generation's table written since its last merge. */
async function unmergedRows(): Promise<number> {
  const { id } = await db.indexGeneration.findFirstOrThrow({ where: { status: "current" } });
  const generation = await testSearchIndex().readable(id);
  return (await generation!.table.indexStats("text_idx"))?.numUnindexedRows ?? 0;
}

async function searchIds(query: string): Promise<string[]> {
  const { results } = await searchDocuments({ db, index: testSearchIndex(), principal: OPERATOR_PRINCIPAL, request: { query, limit: 10, filters: null, principal: null } });
  return results.map((result) => result.documentId);
}

const documents = (prefix: string) => Array.from({ length: 20 }, (_, n) => ({ id: `${prefix}-${n}`, text: `The ${prefix} harbour log ${n} records the tides.` }));

describe("the index maintenance process", () => {
  it("merges what a worker indexes, is not counted as a worker, and indexing goes on without it", async () => {
    const worker = start({ SVC_WORKER_MAINTAINS_INDEX: "false" });
    const maintenance = start({ SVC_WORKER_HEARTBEAT_SECONDS: "1" }, { part: "maintenance" });
    const outputs = () => `${worker.output()}\n${maintenance.output()}`;

    await ingestMany(queue, documents("north"));
    await waitForIndexed(db, ["north-19"], { timeoutMs: 60_000, describe: outputs });
    // Searched, the generation is merged as rows come: by the maintenance process.
    expect(await searchIds("north harbour")).toHaveLength(10);
    await waitFor("the maintenance process to merge the rows", async () => ((await unmergedRows()) === 0 ? true : undefined), { timeoutMs: 30_000, describe: outputs });
    expect(await searchIds('"north harbour log 7"')).toEqual(["north-7"]);

    // Its metrics reach GET /api/metrics through a heartbeat row of its own, which no worker count includes.
    const beat = await waitFor("the maintenance process's heartbeat with its merges", async () => {
      const [row] = await db.$queryRaw<{ role: string; metrics: { name: string }[] | null }[]>`
        SELECT role, metrics FROM worker_heartbeat WHERE pid = ${maintenance.child.pid!}`;
      return row?.metrics?.some((metric) => metric.name === "svc_search_index_merge_seconds") ? row : undefined;
    });
    expect(beat.role).toBe("maintenance");
    const workers = await listLiveWorkers({ db, maxAgeSeconds: WORKER_HEARTBEAT_MAX_AGE_SECONDS });
    expect(workers.map((live) => live.pid)).toEqual([worker.child.pid]);

    // It outlives its database connections (a PostgreSQL restart drops them all), and merges on.
    await db.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'svc-maintenance%'`;
    await ingestMany(queue, documents("east"));
    await waitForIndexed(db, ["east-19"], { timeoutMs: 60_000, describe: outputs });
    await waitFor("the maintenance process to merge again", async () => ((await unmergedRows()) === 0 ? true : undefined), { timeoutMs: 30_000, describe: outputs });
    expect(maintenance.alive(), maintenance.output()).toBe(true);

    expect(await maintenance.stop()).toBe(0);
    expect(await db.$queryRaw<unknown[]>`SELECT 1 FROM worker_heartbeat WHERE pid = ${maintenance.child.pid!}`).toEqual([]);

    // Without it the worker indexes on and merges nothing, over several of its ticks: new documents are
    // found all the same (search scans the rows waiting).
    await ingestMany(queue, documents("south"));
    await waitForIndexed(db, ["south-19"], { timeoutMs: 60_000, describe: outputs });
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await unmergedRows()).toBe(20);
    expect(await searchIds("south harbour")).toHaveLength(10);
    expect(await searchIds('"south harbour log 7"')).toEqual(["south-7"]);
    expect(await indexRowInconsistencies(db)).toEqual({ lost: [], orphans: [], doubled: [] });
    expect(await worker.stop()).toBe(0);
  }, 120_000);
});
