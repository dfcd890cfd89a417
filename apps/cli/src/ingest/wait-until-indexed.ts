import { setTimeout as sleep } from "node:timers/promises";
import type { DocumentDetail } from "@svc/schema";
import type { ProgressBar } from "../output/progress-bar";
import { runPool } from "./run-pool";
import { requestSvcApi, type SvcApi } from "./request-svc-api";

const POLL_MS = 500;

export interface IndexingOutcome {
  indexed: number;
  failed: { documentId: string; reason: string }[];
  /** Still queued or indexing when the time ran out. */
  pending: string[];
}

/**
 * Polls GET /svc-api/ingestion/{id} for each document until it is `indexed` or `failed`, or until
 * the deadline; only the documents still on their way are asked about again.
 */
export async function waitUntilIndexed(
  api: SvcApi,
  documentIds: string[],
  { concurrency, timeoutMs, bar }: { concurrency: number; timeoutMs: number; bar: ProgressBar },
): Promise<IndexingOutcome> {
  const deadline = Date.now() + timeoutMs;
  const outcome: IndexingOutcome = { indexed: 0, failed: [], pending: [...documentIds] };
  while (outcome.pending.length > 0 && Date.now() < deadline) {
    const stillPending: string[] = [];
    await runPool(outcome.pending, concurrency, async (documentId) => {
      const answer = await requestSvcApi<DocumentDetail>(api, "GET", `/svc-api/ingestion/${encodeURIComponent(documentId)}`);
      if (!answer.ok) return void outcome.failed.push({ documentId, reason: answer.reason });
      if (answer.body.indexing_status === "indexed") outcome.indexed += 1;
      else if (answer.body.indexing_status === "failed") outcome.failed.push({ documentId, reason: answer.body.last_error ?? "indexing failed" });
      else stillPending.push(documentId);
    });
    outcome.pending = stillPending;
    bar.update(outcome.indexed + outcome.failed.length, documentIds.length, `${outcome.failed.length} failed`);
    if (stillPending.length > 0) await sleep(POLL_MS);
  }
  return outcome;
}
