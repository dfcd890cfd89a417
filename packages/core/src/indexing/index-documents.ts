import type { Db } from "@svc/db";
import type { IndexDocumentPayload } from "../jobs/catalog";
import { buildChunks, type IndexableDocument } from "./build-chunks";
import { lockDocumentPairs, recordDocumentFailed, recordDocumentIndexed } from "./index-attempts";

/**
 * Indexes the documents of a batch of jobs, each in its own transaction. Safe to run twice and
 * concurrently: the document row is locked, and a job whose version is no longer current skips.
 *
 * A document that fails is marked `failed` (counted in its pairs' attempts) and the batch throws once
 * the others are done, so pg-boss retries it: the documents already indexed skip, a retry that succeeds
 * marks the document indexed, and after the last retry it stays `failed`.
 */
export async function indexDocuments({ db, jobs }: { db: Db; jobs: IndexDocumentPayload[] }): Promise<void> {
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
    const chunks = buildChunks(document as IndexableDocument);

    await tx.$executeRaw`DELETE FROM document_chunk WHERE document_id = ${job.documentId}`;
    await tx.$executeRawUnsafe(
      `INSERT INTO document_chunk (document_id, chunk_index, content, title_prefix, metadata_suffix, image_file_id, link, token_count, search_vector)
       SELECT $1, c.chunk_index, c.content, c.title_prefix, c.metadata_suffix, c.image_file_id, c.link, c.token_count,
         setweight(to_tsvector('english', c.title_prefix), 'A')
           || setweight(to_tsvector('english', c.content), 'B')
           || setweight(to_tsvector('english', c.metadata_suffix), 'C')
       FROM jsonb_to_recordset($2::jsonb) AS c(chunk_index int, content text, title_prefix text,
         metadata_suffix text, image_file_id text, link text, token_count int)`,
      job.documentId,
      JSON.stringify(
        chunks.map((chunk) => ({
          chunk_index: chunk.chunkIndex,
          content: chunk.content,
          title_prefix: chunk.titlePrefix,
          metadata_suffix: chunk.metadataSuffix,
          image_file_id: chunk.imageFileId,
          link: chunk.link,
          token_count: chunk.tokenCount,
        })),
      ),
    );
    await tx.document.update({
      where: { id: job.documentId },
      data: { indexingStatus: "indexed", indexedVersion: job.version, indexedAt: new Date(), chunkCount: chunks.length, lastError: null },
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
