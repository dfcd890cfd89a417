import { setTimeout as sleep } from "node:timers/promises";
import type { ConnectorIndexingStatusResponse, DocumentDetail } from "@svc/schema";
import type { ProgressBar } from "../output/progress-bar";
import { runPool } from "./run-pool";
import { requestSvcApi, type SvcApi } from "./request-svc-api";

const POLL_MS = 500;
/** How often, while documents are still on their way, their pairs are looked up for a pause. */
const PAUSE_CHECK_MS = 5_000;

export interface IndexingOutcome {
  indexed: number;
  failed: { documentId: string; reason: string }[];
  /** Still queued or indexing when the time ran out. */
  pending: string[];
}

/**
 * Polls GET /svc-api/ingestion/{id} for each document until it is `indexed` or `failed`, or until
 * the deadline; only the documents still on their way are asked about again. A document whose
 * pairs are all paused waits for a resume (its indexing is held, not failed): `onPaused` hears of
 * each such pair once, and the wait goes on.
 */
export async function waitUntilIndexed(
  api: SvcApi,
  documentIds: string[],
  {
    concurrency,
    timeoutMs,
    bar,
    onPaused,
  }: { concurrency: number; timeoutMs: number; bar: ProgressBar; onPaused: (pair: { id: number; name: string; waiting: number }) => void },
): Promise<IndexingOutcome> {
  const deadline = Date.now() + timeoutMs;
  const outcome: IndexingOutcome = { indexed: 0, failed: [], pending: [...documentIds] };
  const reported = new Set<number>();
  let nextPauseCheck = 0;
  while (outcome.pending.length > 0 && Date.now() < deadline) {
    const stillPending: string[] = [];
    const pendingPairs: number[][] = [];
    await runPool(outcome.pending, concurrency, async (documentId) => {
      const answer = await requestSvcApi<DocumentDetail>(api, "GET", `/svc-api/ingestion/${encodeURIComponent(documentId)}`);
      if (!answer.ok) return void outcome.failed.push({ documentId, reason: answer.reason });
      if (answer.body.indexing_status === "indexed") outcome.indexed += 1;
      else if (answer.body.indexing_status === "failed") outcome.failed.push({ documentId, reason: answer.body.last_error ?? "indexing failed" });
      else {
        stillPending.push(documentId);
        pendingPairs.push(answer.body.cc_pair_ids);
      }
    });
    outcome.pending = stillPending;
    bar.update(outcome.indexed + outcome.failed.length, documentIds.length, `${outcome.failed.length} failed`);
    if (stillPending.length > 0 && Date.now() >= nextPauseCheck) {
      nextPauseCheck = Date.now() + PAUSE_CHECK_MS;
      for (const pair of await findPausedPairs(api, pendingPairs)) {
        if (reported.has(pair.id)) continue;
        reported.add(pair.id);
        onPaused(pair);
      }
    }
    if (stillPending.length > 0) await sleep(POLL_MS);
  }
  return outcome;
}

/**
 * The paused pairs that hold documents back (those whose pairs are all paused), with how many each
 * holds, from the connector listing (admin and curator keys may read it; a key sees its own pairs).
 * A listing that cannot be read says nothing: the hint is a courtesy, the wait goes on either way.
 */
async function findPausedPairs(api: SvcApi, documentPairs: number[][]): Promise<{ id: number; name: string; waiting: number }[]> {
  const listing = await requestSvcApi<ConnectorIndexingStatusResponse>(
    api,
    "POST",
    "/manage/admin/connector/indexing-status",
    JSON.stringify({ get_all_connectors: true }),
  );
  if (!listing.ok) return [];
  const paused = new Map<number, string>();
  for (const group of listing.body) {
    for (const row of group.indexing_statuses) if ("cc_pair_id" in row && row.cc_pair_status === "PAUSED") paused.set(row.cc_pair_id, row.name);
  }
  const waiting = new Map<number, number>();
  for (const pairs of documentPairs) {
    if (pairs.length === 0 || !pairs.every((id) => paused.has(id))) continue;
    for (const id of pairs) waiting.set(id, (waiting.get(id) ?? 0) + 1);
  }
  return [...waiting].map(([id, count]) => ({ id, name: paused.get(id) ?? "", waiting: count }));
}
