// A pair reads `in_progress` only while its documents are queued or being indexed (issue 39, point 3),
// on a real `svc start` (web and worker) whose worker keeps a push stream in one attempt over
// SVC_ATTEMPT_QUIET_SECONDS: the REST listing and `svc pairs list` (its JSON and its table) say the same
// at every step. The worker indexes two documents a batch, one batch at a time, so a few hundred
// documents take a while; holding the pair's row lock freezes it half way, the moment read here.
import { holdPairLocks, testIngestionBody } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { runSvc, useRunningSvc } from "./testing/run-svc";

// Far longer than a step of this file takes on a loaded machine; its end is reached by aging the attempt.
const QUIET_SECONDS = 600;
const svc = useRunningSvc({ env: { SVC_ATTEMPT_QUIET_SECONDS: String(QUIET_SECONDS), SVC_WORKER_BATCH_SIZE: "2", SVC_WORKER_CONCURRENCY: "1" } });

interface PairState {
  in_progress: boolean;
  last_status: string | null;
  latest_index_attempt_docs_indexed: number | null;
}

type ListingGroups = { indexing_statuses: ({ cc_pair_id?: number } & PairState)[] }[];

function stateOf(groups: ListingGroups, ccPairId: number): PairState {
  const row = groups.flatMap((group) => group.indexing_statuses).find((status) => status.cc_pair_id === ccPairId);
  if (!row) throw new Error(`pair ${ccPairId} is not listed`);
  return { in_progress: row.in_progress, last_status: row.last_status, latest_index_attempt_docs_indexed: row.latest_index_attempt_docs_indexed };
}

/** The pair as the REST listing answers it. */
async function restState(ccPairId: number): Promise<PairState> {
  const response = await fetch(`${svc.apiUrl}/manage/admin/connector/indexing-status`, {
    method: "POST",
    headers: { authorization: `Bearer ${svc.curatorKey}`, "content-type": "application/json" },
    body: JSON.stringify({ get_all_connectors: true }),
  });
  expect(response.status).toBe(200);
  return stateOf((await response.json()) as ListingGroups, ccPairId);
}

/** The pair as `svc pairs list --json` prints it, and its table's LAST ATTEMPT column. */
async function cliState(ccPairId: number): Promise<{ json: PairState; lastAttempt: string | undefined }> {
  const json = await runSvc(["pairs", "list", "--json"], { env: svc.env });
  expect(json.code, json.stderr).toBe(0);
  const table = await runSvc(["pairs", "list"], { env: svc.env });
  expect(table.code, table.stderr).toBe(0);
  const [header, ...rows] = table.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/));
  const row = rows.find((cells) => cells[0] === String(ccPairId));
  return { json: stateOf(JSON.parse(json.stdout) as ListingGroups, ccPairId), lastAttempt: row?.[header?.indexOf("LAST ATTEMPT") ?? -1] };
}

/** REST and CLI read together; they must agree, and the state is returned. */
async function agreedState(ccPairId: number): Promise<PairState> {
  const rest = await restState(ccPairId);
  const cli = await cliState(ccPairId);
  expect(cli.json).toEqual(rest);
  expect(cli.lastAttempt).toBe(rest.last_status ?? "-");
  return rest;
}

async function ingestBatch(ccPairId: number, prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(4, "0")}`);
  const response = await fetch(`${svc.apiUrl}/svc-api/ingestion/batch`, {
    method: "POST",
    headers: { authorization: `Bearer ${svc.curatorKey}`, "content-type": "application/json" },
    body: JSON.stringify({ documents: ids.map((id) => testIngestionBody({ id, text: `Shipment ${id} left the dock.`, ccPairId })) }),
  });
  expect(response.status).toBe(200);
  return ids;
}

async function pendingCount(ccPairId: number): Promise<number> {
  const [row] = await svc.database.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM document d JOIN document_by_cc_pair l ON l.document_id = d.id
    WHERE l.cc_pair_id = ${ccPairId} AND d.indexing_status IN ('queued', 'indexing')`;
  return row?.n ?? 0;
}

/** Waits until the pair reads in progress, then freezes its indexing (the pair's row lock) and reads it with documents still pending. */
async function readWhileIndexing(ccPairId: number): Promise<PairState> {
  await waitFor("the pair in progress", async () => ((await restState(ccPairId)).in_progress ? true : undefined), { timeoutMs: 60_000 });
  const locks = await holdPairLocks(svc.database.db, [ccPairId], 120_000);
  try {
    expect(await pendingCount(ccPairId)).toBeGreaterThan(0);
    return await agreedState(ccPairId);
  } finally {
    await locks.release();
  }
}

/** Waits until every document is indexed; returns when the last one was (its commit closes the attempt). */
async function waitDrained(ids: string[]): Promise<Date> {
  return waitFor(
    "every document indexed",
    async () => {
      const [row] = await svc.database.db.$queryRaw<{ n: number; last: Date | null }[]>`
        SELECT count(*)::int AS n, max(indexed_at) AS last FROM document WHERE id = ANY(${ids}) AND indexing_status = 'indexed'`;
      return row?.n === ids.length ? (row.last ?? undefined) : undefined;
    },
    { timeoutMs: 180_000 },
  );
}

const attempts = (ccPairId: number) =>
  svc.database.db.indexAttempt.findMany({ where: { ccPairId }, orderBy: { id: "asc" }, select: { id: true, status: true, docsIndexed: true, finishedAt: true } });

describe("a pair's attempt state, the same on REST and in `svc pairs list`", () => {
  let ccPairId = 0;
  let firstClose: Date | null = null;

  it("reads in_progress while documents are queued or being indexed, and success as soon as the queue drains", { timeout: 300_000 }, async () => {
    const created = await runSvc(["pairs", "create", "--name", "Dock shipments", "--source", "web", "--access", "public"], { env: svc.env });
    expect(created.code, created.stderr).toBe(0);
    ccPairId = Number(created.stdout.trimEnd().split("\n").at(-1));

    const ids = await ingestBatch(ccPairId, "dock", 300);
    const indexing = await readWhileIndexing(ccPairId);
    expect(indexing).toMatchObject({ in_progress: true, last_status: "in_progress" });

    const drainedAt = await waitDrained(ids);
    // Closed by the commit that indexed the last document (at its time), not after the quiet period.
    const [closed, ...others] = await attempts(ccPairId);
    expect(others).toEqual([]);
    expect(closed).toMatchObject({ status: "success", docsIndexed: ids.length, finishedAt: drainedAt });
    firstClose = closed?.finishedAt ?? null;
    expect(await agreedState(ccPairId)).toEqual({ in_progress: false, last_status: "success", latest_index_attempt_docs_indexed: ids.length });
  });

  it("reopens the same attempt for documents pushed within the quiet period, its counts carrying on", { timeout: 300_000 }, async () => {
    const [before] = await attempts(ccPairId);
    const ids = await ingestBatch(ccPairId, "late", 200);
    const indexing = await readWhileIndexing(ccPairId);
    expect(indexing).toMatchObject({ in_progress: true, last_status: "in_progress" });
    expect(indexing.latest_index_attempt_docs_indexed).toBeGreaterThanOrEqual(300);
    expect(await attempts(ccPairId)).toMatchObject([{ id: before?.id, status: "in_progress", finishedAt: null }]);

    const drainedAt = await waitDrained(ids);
    const [reclosed, ...others] = await attempts(ccPairId);
    expect(others).toEqual([]);
    expect(reclosed).toMatchObject({ id: before?.id, status: "success", docsIndexed: 500, finishedAt: drainedAt });
    expect(reclosed?.finishedAt?.getTime()).toBeGreaterThan(firstClose?.getTime() ?? Infinity);
    expect(await agreedState(ccPairId)).toEqual({ in_progress: false, last_status: "success", latest_index_attempt_docs_indexed: 500 });
  });

  it("starts a new attempt for a document pushed after the quiet period", { timeout: 300_000 }, async () => {
    const [before] = await attempts(ccPairId);
    // The quiet period passed, as if the pair had been left alone that long.
    await svc.database.db.$executeRaw`
      UPDATE index_attempt SET last_activity_at = last_activity_at - make_interval(secs => ${QUIET_SECONDS + 1}),
        finished_at = finished_at - make_interval(secs => ${QUIET_SECONDS + 1})
      WHERE id = ${before?.id}`;
    const ids = await ingestBatch(ccPairId, "next-day", 1);
    await waitDrained(ids);
    expect(await agreedState(ccPairId)).toEqual({ in_progress: false, last_status: "success", latest_index_attempt_docs_indexed: 1 });
    expect((await attempts(ccPairId)).map((attempt) => [attempt.id === before?.id, attempt.status, attempt.docsIndexed])).toEqual([
      [true, "success", 500],
      [false, "success", 1],
    ]);
  });
});
