import type { Db } from "@svc/db";
import type { IndexDocumentPayload } from "../jobs/catalog";
import { lockIndexGenerationsShared, readActiveGenerations, sameGenerations } from "../search-index/index-generations";
import { buildGenerationChunks, writeGenerationChunks } from "../search-index/write-generation-chunks";
import type { IndexableDocument } from "./build-chunks";
import { lockDocumentPairs, recordDocumentFailed, recordDocumentIndexed } from "./index-attempts";
import { markDocumentsIndexing } from "./mark-documents-indexing";

/**
 * Indexes the documents of a batch of jobs, each in its own transaction. Safe to run twice and
 * concurrently: the document row is locked, and a job whose version is no longer current skips.
 *
 * A document that fails is marked `failed` (counted in its pairs' attempts) and the batch throws once
 * the others are done, so pg-boss retries it: the documents already indexed skip, a retry that succeeds
 * marks the document indexed, and after the last retry it stays `failed`.
 */
export async function indexDocuments({ db, jobs }: { db: Db; jobs: IndexDocumentPayload[] }): Promise<void> {
  await markDocumentsIndexing({ db, jobs });
  const errors: unknown[] = [];
  for (const job of jobs) {
    try {
      await indexDocument({ db, job });
    } catch (error) {
      errors.push(error);
      await markDocumentFailed({ db, job, error });
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} documents failed to index`);
}

async function indexDocument({ db, job }: { db: Db; job: IndexDocumentPayload }): Promise<void> {
  await db.$transaction(async (tx) => {
    const [current] = await tx.$queryRaw<{ version: number; indexed_version: number | null }[]>`
      SELECT version, indexed_version FROM document WHERE id = ${job.documentId} FOR UPDATE`;
    // Deleted, superseded by a newer version (whose own job follows), or already done.
    if (!current || current.version !== job.version || current.indexed_version === job.version) return;
    // A document linked only to paused pairs stays queued: resumeCcPair sends its job again.
    const links = await tx.$queryRaw<{ status: string }[]>`
      SELECT p.status::text AS status FROM document_by_cc_pair l
      JOIN connector_credential_pair p ON p.id = l.cc_pair_id WHERE l.document_id = ${job.documentId}`;
    if (links.length > 0 && links.every((link) => link.status === "PAUSED")) return;

    const document = await tx.document.findUniqueOrThrow({
      where: { id: job.documentId },
      select: {
        semanticIdentifier: true,
        title: true,
        metadata: true,
        sections: { select: { kind: true, text: true, link: true, imageFileId: true }, orderBy: { position: "asc" } },
      },
    });
    // Every active generation gets the document: the current one, and the one a rebuild is building.
    // Chunking (the slow part) happens before the generation lock, which a swap waits for; under the
    // lock the generations are read again and, in the rare case they changed, chunked again. Lock
    // order: the document row, the generation lock, then the pair rows (index-generations.ts).
    let chunksByGeneration = buildGenerationChunks(document as IndexableDocument, await readActiveGenerations(tx));
    await lockIndexGenerationsShared(tx);
    const generations = await readActiveGenerations(tx);
    if (!sameGenerations(generations, chunksByGeneration.map(({ generation }) => generation))) {
      chunksByGeneration = buildGenerationChunks(document as IndexableDocument, generations);
    }
    for (const { generation, chunks } of chunksByGeneration) {
      await writeGenerationChunks(tx, generation, [{ documentId: job.documentId, chunks }]);
    }
    const chunkCount = chunksByGeneration.find(({ generation }) => generation.status === "current")?.chunks.length ?? null;
    await tx.document.update({
      where: { id: job.documentId },
      data: { indexingStatus: "indexed", indexedVersion: job.version, indexedAt: new Date(), chunkCount, lastError: null },
    });
    // Pair rows are locked in id order before any of them is updated.
    const pairs = await lockDocumentPairs(tx, job.documentId);
    // Links indexed for the first time now count in their pair's docs_indexed.
    await tx.$executeRaw`
      WITH newly_indexed AS (
        UPDATE document_by_cc_pair SET has_been_indexed = true
        WHERE document_id = ${job.documentId} AND NOT has_been_indexed
        RETURNING cc_pair_id
      )
      UPDATE connector_credential_pair p SET docs_indexed = p.docs_indexed + 1
      FROM newly_indexed n WHERE p.id = n.cc_pair_id`;
    await recordDocumentIndexed(tx, pairs);
  });
}

/**
 * Records a failed try of the job's version: `failed` with the error, one more try; the first failure
 * of the version counts in its pairs' attempts (a retry that fails again does not count twice).
 */
async function markDocumentFailed({ db, job, error }: { db: Db; job: IndexDocumentPayload; error: unknown }): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await db.$transaction(async (tx) => {
    const [current] = await tx.$queryRaw<{ version: number; indexed_version: number | null; indexing_status: string }[]>`
      SELECT version, indexed_version, indexing_status::text AS indexing_status
      FROM document WHERE id = ${job.documentId} FOR UPDATE`;
    if (!current || current.version !== job.version || current.indexed_version === job.version) return;
    await tx.document.update({
      where: { id: job.documentId },
      data: { indexingStatus: "failed", lastError: message, indexAttempts: { increment: 1 } },
    });
    if (current.indexing_status === "failed") return;
    await recordDocumentFailed(tx, await lockDocumentPairs(tx, job.documentId), message);
  });
}
