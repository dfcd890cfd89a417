import { setTimeout as sleep } from "node:timers/promises";
import type { SvcEventStream } from "@svc/client";
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

/** A document sent, and the pair it was sent to (for the paused-pair hint). */
export interface SentDocument {
  documentId: string;
  ccPairId: number;
}

interface WaitOptions {
  concurrency: number;
  timeoutMs: number;
  bar: ProgressBar;
  onPaused: (pair: { id: number; name: string; waiting: number }) => void;
}

/**
 * Waits on svc's event stream (opened before the documents were sent, so none of their events can
 * pass unseen) until each document is `document.indexed` or `document.failed` (or deleted), or until
 * the deadline: no request per document. Meanwhile, every 5 s, the pairs the waiting documents were
 * sent to are looked up for a pause (its indexing is held, not failed): `onPaused` hears of each such
 * pair once, and the wait goes on. The one fallback is a single GET per waiting document when the
 * stream says it missed events (a reconnection past the retention window): their end may be among them.
 */
export async function waitOnEventStream(api: SvcApi, events: SvcEventStream, documents: SentDocument[], options: WaitOptions): Promise<IndexingOutcome> {
  const total = new Set(documents.map((document) => document.documentId)).size;
  const pending = new Map(documents.map((document) => [document.documentId, document.ccPairId]));
  const outcome: IndexingOutcome = { indexed: 0, failed: [], pending: [] };
  const report = () => options.bar.update(outcome.indexed + outcome.failed.length, total, `${outcome.failed.length} failed`);
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(), options.timeoutMs);
  const hints = watchPausedPairs(api, () => [...pending.values()].map((id) => [id]), options.onPaused, stop.signal);
  try {
    const iterator = events[Symbol.asyncIterator]();
    const aborted = new Promise<IteratorResult<never>>((resolve) => stop.signal.addEventListener("abort", () => resolve({ done: true, value: undefined as never })));
    while (pending.size > 0 && !stop.signal.aborted) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) break;
      const event = next.value;
      if (event.type === "events.missed") {
        const checked = await pollUntilIndexed(api, [...pending.keys()], { ...options, timeoutMs: 0 });
        for (const id of [...pending.keys()]) if (!checked.pending.includes(id)) pending.delete(id);
        outcome.indexed += checked.indexed;
        outcome.failed.push(...checked.failed);
      } else if (event.document_id !== null && pending.delete(event.document_id)) {
        if (event.type === "document.indexed") outcome.indexed += 1;
        else outcome.failed.push({ documentId: event.document_id, reason: event.error ?? (event.type === "document.deleted" ? "deleted before it was indexed" : "indexing failed") });
      } else continue;
      report();
    }
    void iterator.return?.(undefined);
  } finally {
    clearTimeout(deadline);
    stop.abort();
    await hints;
  }
  outcome.pending = [...pending.keys()];
  return outcome;
}

/** Every 5 s until `signal` aborts: the paused pairs holding the waiting documents, each told once. */
async function watchPausedPairs(api: SvcApi, pairsOf: () => number[][], onPaused: WaitOptions["onPaused"], signal: AbortSignal): Promise<void> {
  const reported = new Set<number>();
  while (!signal.aborted) {
    for (const pair of await findPausedPairs(api, pairsOf())) {
      if (reported.has(pair.id) || signal.aborted) continue;
      reported.add(pair.id);
      onPaused(pair);
    }
    await sleep(PAUSE_CHECK_MS, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * Polls GET /svc-api/ingestion/{id} for each document until it is `indexed` or `failed`, or until
 * the deadline (one pass when it is 0); only the documents still on their way are asked about again.
 * The stream's fallback: when it cannot be opened (its streams all taken: 429), or missed events.
 */
export async function pollUntilIndexed(api: SvcApi, documentIds: string[], { concurrency, timeoutMs, bar, onPaused }: WaitOptions): Promise<IndexingOutcome> {
  const deadline = Date.now() + timeoutMs;
  const outcome: IndexingOutcome = { indexed: 0, failed: [], pending: [...documentIds] };
  const reported = new Set<number>();
  let nextPauseCheck = 0;
  do {
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
    if (timeoutMs === 0) break;
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
  } while (outcome.pending.length > 0 && Date.now() < deadline);
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
