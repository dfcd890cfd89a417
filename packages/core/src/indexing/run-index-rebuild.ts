import { recordRebuildFinishedEvent } from "../events/event-rows";
import { transactionCancelledOnAbort, type Db, type Tx } from "@svc/db";
import { buildChunks, type IndexableDocument } from "./build-chunks";
import { syncLastAttemptStatus } from "./cc-pair-rows";
import {
  closeGenerationAttempts,
  countInGenerationAttempts,
  endGenerationAttempts,
  lockDocumentPairs,
  lockGenerationAttemptPairs,
  pairsWithAttempts,
  type GenerationAttemptCount,
} from "./index-attempts";
import { purgeIndexGenerationJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import {
  claimRebuildBatch,
  countRebuildBatch,
  lockIndexGenerationsExclusive,
  lockIndexGenerationsShared,
  REBUILT_DOCUMENT_SQL,
  swapGenerations,
  type ChunkGeneration,
} from "../search-index/index-generations";
import { writeGenerationChunks, type DocumentChunks } from "./write-generation-chunks";
import { optimizeGenerationTable } from "@svc/search-index";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { writeIndexRows } from "./write-index-rows";
import { findDocumentsWithoutIndexRows, recordIndexWriteIntents, settleIndexWriteIntents } from "../search-index/index-write-intents";
import { markRebuildFailures, recordRebuildFailures } from "./rebuild-failures";

export interface RunIndexRebuildResult {
  /**
   * False when the generation was not swapped in by this run: it is no longer building (done,
   * canceled), or the run stopped after `maxBatches`.
   */
  swapped: boolean;
  /** Documents this run wrote (or failed to write) into the generation. */
  docsDone: number;
  docsFailed: number;
}

type BatchOutcome =
  /** `documentIds`: every document the batch wrote into the index, done or failed. */
  | { kind: "written"; done: number; failed: number; documentIds: string[] }
  /** Another run of the same job advanced the cursor first: read it again. */
  | { kind: "raced" }
  | { kind: "drained" }
  | { kind: "stopped" };

/**
 * The `rebuild-index` job: writes every document that has an indexed version into the building
 * generation, in id order, a batch per transaction, then swaps the generation in. A document whose
 * indexing failed is not tried again (retrying it is the pair page's or its job's business): it is
 * carried as failed, counted in `docs_failed` and, with its error, in its pairs' rebuild attempts, and
 * it keeps no chunks in the new generation (its newest version was never indexed: a stale older
 * version in the current generation is not carried over). Safe to run twice
 * and concurrently, and resumable: each batch moves the generation's `cursor_document_id` in the
 * transaction that writes it (only from the value it read, so two runs never write a batch twice),
 * and a run that was cut off starts after it.
 *
 * Documents ingested or re-indexed meanwhile are written to both generations by their own indexing
 * job (index-documents.ts); a document the pass reaches again is simply rewritten. A document is
 * chunked from its stored sections, which are those of its newest version; its own job rewrites it
 * if that version is not indexed yet.
 */
export async function runIndexRebuild({
  db,
  boss,
  index,
  generationId,
  batchSize = 200,
  maxBatches = Number.POSITIVE_INFINITY,
  signal,
}: {
  db: Db;
  boss: PgBoss;
  index: SearchIndexTables;
  generationId: number;
  batchSize?: number;
  /** Stop after this many batches, leaving the rest to a later run (which resumes at the cursor). */
  maxBatches?: number;
  /**
   * Aborts when the run must stop (the worker is shutting down, or pg-boss gave the job up): the batch
   * in flight is rolled back at once, the run's attempts end `interrupted` and it rejects with
   * RebuildInterruptedError; a later run resumes at the cursor.
   */
  signal?: AbortSignal;
}): Promise<RunIndexRebuildResult> {
  const result: RunIndexRebuildResult = { swapped: false, docsDone: 0, docsFailed: 0 };
  await endGenerationAttempts(db, generationId, "interrupted");
  for (let batches = 0; ; batches += 1) {
    if (batches >= maxBatches) return result;
    // Committed before the batch writes any row to the index, as indexing does: the batch appends the
    // rows of the documents the generation's table holds none of (index-write-intents.ts).
    const intents = await recordIndexWriteIntents(db, await peekRebuildBatch(db, generationId, batchSize));
    // Chunking a batch of large documents takes a while; the default 5 s would cut it off.
    const outcome = await stopOnAbort(db, generationId, signal, () =>
      transactionCancelledOnAbort(
        db,
        signal,
        async (tx) => {
          const batch = await rebuildBatch(tx, index, generationId, batchSize, intents);
          // Removed with the batch: the intents of the documents it wrote, and of those it did not reach.
          const written = batch.kind === "written" ? batch.documentIds : [];
          await settleIndexWriteIntents(tx, { written, wanted: [...intents.keys()], intents });
          return batch;
        },
        { timeout: 300_000 },
      ),
    );
    if (outcome.kind === "stopped") {
      // An earlier run may have swapped and stopped before it marked the pass's failures.
      await markRebuildFailures(db, generationId);
      return result;
    }
    if (outcome.kind === "drained") break;
    if (outcome.kind === "written") {
      result.docsDone += outcome.done;
      result.docsFailed += outcome.failed;
    }
  }
  await stopOnAbort(db, generationId, signal, () => optimizeBuiltGeneration(db, index, generationId));
  result.swapped = await stopOnAbort(db, generationId, signal, () =>
    transactionCancelledOnAbort(db, signal, (tx) => swapInGeneration(tx, boss, generationId), { timeout: 120_000 }),
  );
  await markRebuildFailures(db, generationId);
  return result;
}

/** A run of a rebuild stopped by its signal (runIndexRebuild); its job is retried and resumes. */
export class RebuildInterruptedError extends Error {
  constructor(generationId: number) {
    super(`the rebuild of index generation ${generationId} was interrupted; a later run resumes it`);
    this.name = "RebuildInterruptedError";
  }
}

/**
 * Runs one step of the run, unless the signal has aborted; if it aborts (before the step or during
 * it, which rolls the step back), the run's open attempts end `interrupted` and the run stops with
 * RebuildInterruptedError. The job is still this run's while it marks them, so no later run's
 * attempts are touched.
 */
async function stopOnAbort<T>(db: Db, generationId: number, signal: AbortSignal | undefined, step: () => Promise<T>): Promise<T> {
  try {
    if (signal?.aborted !== true) return await step();
  } catch (error) {
    if (signal?.aborted !== true) throw error;
  }
  await endGenerationAttempts(db, generationId, "interrupted");
  throw new RebuildInterruptedError(generationId);
}

/** The ids of the pass's next batch as they stand now; the batch reads them again, locked. */
async function peekRebuildBatch(db: Db, generationId: number, batchSize: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM document d JOIN index_generation g ON g.id = ${generationId}
    WHERE d.id > COALESCE(g.cursor_document_id, '') AND ${REBUILT_DOCUMENT_SQL}
    ORDER BY d.id LIMIT ${batchSize}`;
  return rows.map((row) => row.id);
}

async function rebuildBatch(
  tx: Tx,
  index: SearchIndexTables,
  generationId: number,
  batchSize: number,
  intents: Map<string, number>,
): Promise<BatchOutcome> {
  const [generation] = await tx.$queryRaw<(ChunkGeneration & { cursor: string | null })[]>`
    SELECT id, status::text AS status, chunk_token_limit AS "chunkTokenLimit",
      text_search_config AS "textSearchConfig", cursor_document_id AS cursor
    FROM index_generation WHERE id = ${generationId}`;
  if (generation?.status !== "building") return { kind: "stopped" };

  // The batch's document rows, locked in id order as ingestion, indexing and pair deletion lock them:
  // an indexing job of one of them waits for this batch, or this batch for it.
  // Failed documents too: the pass carries them as failed (below), so that the rebuild's result and
  // its attempts count them rather than skip them.
  const locked = await tx.$queryRaw<{ id: string; failed: boolean; last_error: string | null }[]>`
    SELECT id, indexing_status = 'failed' AS failed, last_error FROM document
    WHERE id > ${generation.cursor ?? ""} AND ${REBUILT_DOCUMENT_SQL}
    ORDER BY id LIMIT ${batchSize}
    FOR UPDATE`;
  const lastId = locked.at(-1)?.id;
  if (lastId === undefined) return { kind: "drained" };

  await lockIndexGenerationsShared(tx);
  // Claims the batch: the cursor moves only from where this run found it. A concurrent run of the
  // same job (a retry while the first still runs) blocks on the row here and then finds nothing to
  // claim; a canceled generation is not written either.
  if (!(await claimRebuildBatch(tx, generationId, generation.cursor, lastId))) return { kind: "raced" };
  // Read before the chunks are written below: the documents the generation's table holds none of.
  const absent = await findDocumentsWithoutIndexRows(tx, { generationId, documentIds: locked.map((row) => row.id), intents });

  const failures = new Map<string, string>();
  for (const row of locked) if (row.failed) failures.set(row.id, row.last_error ?? "indexing failed");
  const documents = await tx.document.findMany({
    where: { id: { in: locked.filter((row) => !row.failed).map((row) => row.id) } },
    select: {
      id: true,
      semanticIdentifier: true,
      title: true,
      metadata: true,
      sections: { select: { kind: true, text: true, link: true, imageFileId: true }, orderBy: { position: "asc" } },
    },
  });
  // Documents this pass fails to chunk or to write: recorded, and failed at the swap (rebuild-failures.ts).
  const passFailures = new Map<string, string>();
  const chunked: DocumentChunks[] = [];
  for (const document of documents) {
    try {
      chunked.push({
        documentId: document.id,
        chunks: buildChunks(document as IndexableDocument, { maxTokens: generation.chunkTokenLimit }),
      });
    } catch (error) {
      passFailures.set(document.id, errorMessage(error));
    }
  }
  const written = await writeChunksIsolated(tx, generation, chunked, passFailures);
  await recordRebuildFailures(tx, generationId, passFailures);
  for (const [documentId, error] of passFailures) failures.set(documentId, error);
  // A failed document keeps no chunks in the new generation (an indexing job may have written some).
  const emptied = [...failures.keys()].map((documentId) => ({ documentId, chunks: [] }));
  await writeGenerationChunks(tx, generation, emptied);
  // Into the generation's table of the search index before this transaction commits, as indexing
  // does: a batch that fails to commit is written again from the same cursor (a replace, idempotent).
  await writeIndexRows(tx, index, generation, [...written, ...emptied], absent);
  await countInAttempts(tx, generationId, new Set(written.map((document) => document.documentId)), failures);
  await countRebuildBatch(tx, generationId, written.length, failures.size);
  // Every locked document got its rows written (a failed one lost them).
  return { kind: "written", done: written.length, failed: failures.size, documentIds: locked.map((row) => row.id) };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Writes the batch's chunks into the generation; if PostgreSQL refuses them, writes them document by
 * document, each under a savepoint, so that a document whose chunks cannot be written fails itself
 * only (into `failures`) rather than the batch, which would stop the rebuild for good. An error that
 * is not the document's (the connection is gone) fails the rollback too, and so the batch. Returns
 * the documents written.
 */
async function writeChunksIsolated(
  tx: Tx,
  generation: ChunkGeneration,
  documents: DocumentChunks[],
  failures: Map<string, string>,
): Promise<DocumentChunks[]> {
  if ((await tryUnderSavepoint(tx, () => writeGenerationChunks(tx, generation, documents))) === null) return documents;
  const written: DocumentChunks[] = [];
  for (const document of documents) {
    const failure = await tryUnderSavepoint(tx, () => writeGenerationChunks(tx, generation, [document]));
    if (failure === null) written.push(document);
    else failures.set(document.documentId, errorMessage(failure.error));
  }
  return written;
}

/** Runs `write` under a savepoint: null when it succeeded, else its error, rolled back to the savepoint. */
async function tryUnderSavepoint(tx: Tx, write: () => Promise<void>): Promise<{ error: unknown } | null> {
  await tx.$executeRaw`SAVEPOINT rebuild_write`;
  try {
    await write();
  } catch (error) {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT rebuild_write`;
    return { error };
  }
  await tx.$executeRaw`RELEASE SAVEPOINT rebuild_write`;
  return null;
}

/**
 * Merges the generation's table (FTS index, compaction) before it becomes current: search then ranks
 * every row exactly from its first query, and phrases match them (LanceDB matches phrases in merged
 * rows only). Skipped when the generation is no longer building.
 */
async function optimizeBuiltGeneration(db: Db, index: SearchIndexTables, generationId: number): Promise<void> {
  const generation = await db.indexGeneration.findUnique({ where: { id: generationId }, select: { status: true, textSearchConfig: true } });
  if (generation?.status !== "building") return;
  const table = await index.writable({ id: generationId, textSearchConfig: generation.textSearchConfig });
  // Versions stay 10 minutes: another run of the job, or indexing, may be reading or writing one.
  await optimizeGenerationTable({ generation: table, pruneOlderThan: new Date(Date.now() - 10 * 60_000) });
}

/**
 * Counts the batch in the rebuild's attempts, one per pair (`in_progress` until the swap), opened the
 * first time a batch holds a document of the pair. Paused and deleting pairs get none, as in indexing.
 */
async function countInAttempts(tx: Tx, generationId: number, indexed: Set<string>, failures: Map<string, string>): Promise<void> {
  const documentIds = [...indexed, ...failures.keys()];
  // Pair rows are locked in id order, after the generation lock, as indexing does.
  const pairs = await lockDocumentPairs(tx, documentIds);
  const counted = new Set(pairsWithAttempts(pairs).map((pair) => pair.id));
  if (counted.size === 0) return;
  const links = await tx.$queryRaw<{ document_id: string; cc_pair_id: number }[]>`
    SELECT document_id, cc_pair_id FROM document_by_cc_pair WHERE document_id = ANY(${documentIds}::text[])`;
  const counts = new Map<number, GenerationAttemptCount>();
  for (const link of links) {
    if (!counted.has(link.cc_pair_id)) continue;
    const count = counts.get(link.cc_pair_id) ?? { cc_pair_id: link.cc_pair_id, indexed: 0, failed: 0, error: null };
    const failure = failures.get(link.document_id);
    if (failure === undefined) {
      count.indexed += 1;
    } else {
      count.failed += 1;
      count.error = failure;
    }
    counts.set(link.cc_pair_id, count);
  }
  await countInGenerationAttempts(tx, generationId, [...counts.values()]);
}

/**
 * The swap, in one transaction under the exclusive generation lock (no indexing transaction is
 * half-way): the rebuild's attempts close (`success`, `completed_with_errors` or `failed` from their
 * counts), the current generation retires, the building one becomes current, and the pairs whose
 * rebuild attempt now counts get their `last_attempt_status` recomputed. The
 * retired generation's chunks are left to a `purge-index-generation` job. Returns false when the
 * generation is no longer building (swapped by an earlier run, or canceled).
 */
async function swapInGeneration(tx: Tx, boss: PgBoss, generationId: number): Promise<boolean> {
  await lockIndexGenerationsExclusive(tx);
  const [generation] = await tx.$queryRaw<{ status: string }[]>`
    SELECT status::text AS status FROM index_generation WHERE id = ${generationId} FOR UPDATE`;
  if (generation?.status !== "building") return false;

  const pairIds = await lockGenerationAttemptPairs(tx, generationId);
  await closeGenerationAttempts(tx, generationId);
  const retired = await swapGenerations(tx, generationId);
  await syncLastAttemptStatus(tx, pairIds);
  await recordRebuildFinishedEvent(tx, { generationId, status: "completed" });
  for (const id of retired) await sendJob(boss, purgeIndexGenerationJob, { generationId: id }, { tx });
  return true;
}
