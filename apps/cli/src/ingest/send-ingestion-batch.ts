import type { IngestionBatchResponse } from "@svc/schema";
import { describeDetail, requestSvcApi, type SvcApi } from "./request-svc-api";

const BATCH_PATH = "/svc-api/ingestion/batch";

/** What became of one document of a batch. */
export type BatchItemOutcome = { ok: true; documentId: string; alreadyExisted: boolean } | { ok: false; reason: string };

export interface BatchAnswer {
  /** One per document, in the order sent. */
  outcomes: BatchItemOutcome[];
  /** Set when svc refused the key (401): nothing else will be accepted either. */
  refusedKey: string | null;
}

/**
 * Sends documents (each an ingestion body as JSON text) in one POST /svc-api/ingestion/batch, with
 * requestSvcApi's retries. Each item's error reads as the single call's would. A 413 (the body is over
 * the server's limit, or took too long to validate) or a 422 of the whole batch (its items hold more
 * errors than one answer lists) is answered by sending each half apart, down to one document; any
 * other failure of the whole request is every document's reason.
 */
export async function sendIngestionBatch(api: SvcApi, documents: string[]): Promise<BatchAnswer> {
  const answer = await requestSvcApi<IngestionBatchResponse>(api, "POST", BATCH_PATH, `{"documents":[${documents.join(",")}]}`);
  if (!answer.ok) {
    if ((answer.status === 413 || answer.status === 422) && documents.length > 1) {
      const half = Math.ceil(documents.length / 2);
      const first = await sendIngestionBatch(api, documents.slice(0, half));
      if (first.refusedKey) return first;
      const second = await sendIngestionBatch(api, documents.slice(half));
      return { outcomes: [...first.outcomes, ...second.outcomes], refusedKey: second.refusedKey };
    }
    return { outcomes: documents.map(() => ({ ok: false, reason: answer.reason })), refusedKey: answer.status === 401 ? answer.reason : null };
  }
  const { results } = answer.body;
  if (results.length !== documents.length) {
    const reason = `svc answered ${results.length} results for ${documents.length} documents`;
    return { outcomes: documents.map(() => ({ ok: false, reason })), refusedKey: null };
  }
  return {
    outcomes: results.map((result) =>
      "error" in result
        ? // The loc of an item's fault is ["body", "documents", i, …]: without "documents", i.
          { ok: false, reason: describeDetail(result.error.status, result.error.detail, 2) }
        : { ok: true, documentId: result.document_id, alreadyExisted: result.already_existed },
    ),
    refusedKey: null,
  };
}
