import { querySql, type Db } from "@svc/db";
import type { IndexDocumentPayload } from "../jobs/catalog";

/**
 * Moves the documents of a batch a worker has just taken from `queued` to `indexing`, so that GET
 * /svc-api/ingestion/{id} tells a waiting document from one being worked on. One statement, outside
 * the indexing transactions; the per-document transaction then writes `indexed` or `failed`.
 *
 * Only a document still `queued` at the job's version moves: a newer version (ingestion sets it
 * `queued` again), an indexed or a deleted document is left alone. Left alone too:
 * - a `failed` document being retried: markDocumentFailed counts a version's failure in its pairs'
 *   attempts only while the status is not yet `failed`, so the status must stay `failed` through retries;
 * - a document linked only to paused pairs, which the indexing skips (it stays `queued` until
 *   resumeCcPair sends its job again; a pause that lands in between is caught there too, as resuming
 *   resends `indexing` documents);
 * - a row locked by someone else (ingestion writing a new version, another worker indexing it):
 *   SKIP LOCKED, so this never waits behind a long transaction, and rows are taken in id order, as
 *   ingestion and indexing lock them.
 *
 * The status test compares text on purpose: it keeps the status index out of the plan, which then
 * looks the batch's documents up by id. Statistics taken while everything was indexed estimate almost
 * no `queued` rows, and a plan that scanned them all cost ~20 ms a batch during a bulk load.
 *
 * A worker killed after this leaves `indexing` documents behind; `closeAttemptIfDrained` counts them
 * as pending, and their jobs, still `active`, are retried once their heartbeat lapses (jobs/catalog.ts).
 */
export async function markDocumentsIndexing({ db, jobs }: { db: Db; jobs: IndexDocumentPayload[] }): Promise<void> {
  if (jobs.length === 0) return;
  await querySql(db, {
    name: "mark-documents-indexing",
    text: MARK_DOCUMENTS_INDEXING,
    values: [jobs.map((job) => job.documentId), jobs.map((job) => job.version)],
  });
}

const MARK_DOCUMENTS_INDEXING = `
  UPDATE document d SET indexing_status = 'indexing'
  FROM (
    SELECT c.id FROM document c
    WHERE (c.id, c.version) IN (SELECT * FROM unnest($1::text[], $2::int[]))
      AND c.indexing_status::text = 'queued'
      AND (
        NOT EXISTS (SELECT 1 FROM document_by_cc_pair l WHERE l.document_id = c.id)
        OR EXISTS (
          SELECT 1 FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
          WHERE l.document_id = c.id AND p.status <> 'PAUSED'))
    ORDER BY c.id
    FOR NO KEY UPDATE OF c SKIP LOCKED
  ) taken
  WHERE d.id = taken.id`;
