import { queryStatement, withSqlTransaction, type Db, type NamedStatement, type SqlClient } from "@svc/db";
import type { IndexDocumentPayload } from "../jobs/catalog";
import { lockIndexGenerationsShared, readActiveGenerations, sameGenerations, type ChunkGeneration } from "../search-index/index-generations";
import { buildGenerationChunks, writeGenerationChunks } from "./write-generation-chunks";
import type { Chunk, IndexableDocument } from "./build-chunks";
import { countLinksIndexed } from "./cc-pair-rows";
import {
  lockDocumentPairs,
  openTakenAttempts,
  recordDocumentFailed,
  recordDocumentsIndexed,
  type AttemptWindow,
  type CountedPair,
  type LockedPair,
} from "./index-attempts";
import { recordDocumentFailedEvent, recordDocumentsIndexedEvents } from "../events/event-rows";
import { markDocumentsIndexed, markDocumentsIndexing, markDocumentTryFailed, type IndexedDocument } from "./document-rows";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { writeIndexRows } from "./write-index-rows";
import { collectGarbage, releaseHeap } from "./collect-garbage";
import { findDocumentsWithoutIndexRows, recordIndexWriteIntents, settleIndexWriteIntents } from "../search-index/index-write-intents";

/**
 * Indexes the documents of a batch of jobs in one transaction on a plain pg connection, with a fixed
 * number of set-based statements whatever the batch's size. Safe to run twice and concurrently: the
 * document rows are locked, and a job whose version is no longer current skips.
 *
 * Chunking (tokenizing, the slow part) happens before the transaction, on a read of the documents;
 * under the row locks the versions are checked again, and only a document whose chunks do not match
 * what is locked is read and chunked again. So the locks are held for the writes alone.
 *
 * If the batch fails, its documents are tried again one per transaction, so that a bad document fails
 * only itself: it is marked `failed` (counted in its pairs' attempts) and the batch throws once the
 * others are done, so pg-boss retries it: the documents already indexed skip, a retry that succeeds
 * marks the document indexed, and after the last retry it stays `failed`.
 */
export async function indexDocuments({
  db,
  index,
  jobs,
  onIndexed = () => undefined,
  attemptWindow,
}: {
  db: Db;
  index: SearchIndexTables;
  jobs: IndexDocumentPayload[];
  /** Called after each commit with the documents it indexed (the worker's logs and metrics). */
  onIndexed?: (documents: IndexedDocument[]) => void;
  /** The attempts' quiet period (index-attempts.ts): a drained pair's next document within it reopens its attempt; never when absent. */
  attemptWindow?: AttemptWindow;
}): Promise<void> {
  await openTakenAttempts(db, await markDocumentsIndexing({ db, jobs }), attemptWindow);
  const latest = latestJobs(jobs);
  if (latest.length === 0) return;
  try {
    onIndexed(await indexBatch(db, index, latest, attemptWindow));
    return;
  } catch (error) {
    if (latest.length === 1) {
      await markDocumentFailed({ db, job: latest[0]!, error, attemptWindow });
      throw error;
    }
  }
  const errors: unknown[] = [];
  for (const job of latest) {
    try {
      onIndexed(await indexBatch(db, index, [job], attemptWindow));
    } catch (error) {
      errors.push(error);
      await markDocumentFailed({ db, job, error, attemptWindow });
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} documents failed to index`);
}

/** One job per document, the newest version's: an older one would skip as superseded anyway. */
function latestJobs(jobs: IndexDocumentPayload[]): IndexDocumentPayload[] {
  const byId = new Map<string, IndexDocumentPayload>();
  for (const job of jobs) {
    const seen = byId.get(job.documentId);
    if (!seen || seen.version < job.version) byId.set(job.documentId, job);
  }
  return [...byId.values()].sort((a, b) => (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : 0));
}

/** A document's chunks for each active generation, at the version they were read at. */
interface ChunkedDocument {
  version: number;
  byGeneration: { generation: ChunkGeneration; chunks: Chunk[] }[];
}

async function indexBatch(db: Db, index: SearchIndexTables, jobs: IndexDocumentPayload[], attemptWindow?: AttemptWindow): Promise<IndexedDocument[]> {
  // A batch holding a long section (a large document) holds this process's merges off from its read
  // to its commit: a merge beside it stacked its memory on the document's (MergeSchedule). V8 gives
  // its free pages back before the document is read, and the pages of its text and chunks once it
  // is indexed, before the merge that follows (releaseHeap).
  let releaseMerges: (() => void) | undefined;
  const holdMerges = () => {
    if (releaseMerges) return;
    releaseMerges = index.holdMerges();
    releaseHeap();
  };
  try {
    return await indexBatchHeld(db, index, jobs, holdMerges, attemptWindow);
  } finally {
    if (releaseMerges) {
      releaseHeap();
      releaseMerges();
    }
  }
}

async function indexBatchHeld(
  db: Db,
  index: SearchIndexTables,
  jobs: IndexDocumentPayload[],
  holdMerges: () => void,
  attemptWindow?: AttemptWindow,
): Promise<IndexedDocument[]> {
  const wanted = new Map(jobs.map((job) => [job.documentId, job.version]));
  // Outside the transaction: read and chunk what still needs indexing. A stale read is caught below.
  // Plain pg throughout, never the Prisma client: its query compiler alone would add ~70 MB to the worker.
  const generationsRead = await withSqlTransaction(db, (sql) => readActiveGenerations(sql));
  const chunked = new Map<string, ChunkedDocument>();
  const toChunk = (await readIndexState(db, [...wanted.keys()])).filter((row) => needsIndexing(row, wanted));
  await chunkDocuments(db, toChunk, generationsRead, chunked, holdMerges);
  // Committed before any row is written to the index: a crash after that write is seen by the next.
  const intents = await recordIndexWriteIntents(db, [...wanted.keys()]);

  return withSqlTransaction(db, async (sql) => {
    // Lock order: the document rows (in id order), the generation lock, then the pair rows.
    const locked = await readIndexState(sql, [...wanted.keys()], { lock: true });
    const pausedOnly = await readPausedOnly(sql, locked.map((row) => row.id));
    // Deleted, superseded by a newer version (whose own job follows), already done, or linked only to
    // paused pairs (it stays queued: resumeCcPair sends its job again).
    const todo = locked.filter((row) => needsIndexing(row, wanted) && !pausedOnly.has(row.id));
    // Settled with this transaction: the write intents of the documents it writes (once read below),
    // and of those it skips.
    const settleIntents = () => settleIndexWriteIntents(sql, { written: todo.map((row) => row.id), wanted: [...wanted.keys()], intents });
    if (todo.length === 0) {
      await settleIntents();
      return [];
    }

    await lockIndexGenerationsShared(sql);
    const generations = await readActiveGenerations(sql);
    const stale = todo.filter((row) => {
      const ready = chunked.get(row.id);
      return !ready || ready.version !== row.version || !sameGenerations(generations, ready.byGeneration.map(({ generation }) => generation));
    });
    await chunkDocuments(sql, stale, generations, chunked, holdMerges);
    // Read before the chunks are replaced below: each generation's table takes the rows of the
    // documents it holds none of by an append (index-write-intents.ts).
    const absent = new Map<number, Set<string>>();
    for (const generation of generations) {
      absent.set(generation.id, await findDocumentsWithoutIndexRows(sql, { generationId: generation.id, documentIds: todo.map((row) => row.id), intents }));
    }
    await settleIntents();

    const perGeneration = generations.map((generation) => ({
      generation,
      documents: todo.map((row) => ({
        documentId: row.id,
        chunks: chunked.get(row.id)?.byGeneration.find((entry) => entry.generation.id === generation.id)?.chunks ?? [],
      })),
    }));
    for (const { generation, documents } of perGeneration) await writeGenerationChunks(sql, generation, documents);
    // The search index before PostgreSQL commits (ARCHITECTURE.md, "Write order"): once the job's
    // transaction commits, the rows are there. A crash in between leaves the job to be retried (the
    // replace is idempotent; the intent recorded above turns a retried append into a replace), and
    // until then search hides rows of documents PostgreSQL does not call indexed. One commit per
    // generation for the batch's new documents and one for the others, under the document row locks,
    // so two workers never write one document out of order.
    for (const { generation, documents } of perGeneration) {
      await writeIndexRows(sql, index, generation, documents, absent.get(generation.id));
    }
    perGeneration.length = 0;
    const chunkCounts = todo.map((row) => {
      const current = chunked.get(row.id)?.byGeneration.find(({ generation }) => generation.status === "current");
      return current ? current.chunks.length : null;
    });
    chunked.clear();
    const indexed = await markDocumentsIndexed(sql, { ids: todo.map((row) => row.id), versions: todo.map((row) => row.version), chunkCounts });
    await recordDocumentsIndexedEvents(sql, { ids: indexed.map((row) => row.documentId), versions: indexed.map((row) => row.version) });

    const todoIds = todo.map((row) => row.id);
    const pairs = await lockDocumentPairs(sql, todoIds);
    // Links indexed for the first time now count in their pair's docs_indexed.
    await countLinksIndexed(sql, todoIds);
    await recordDocumentsIndexed(sql, await countDocumentsPerPair(sql, pairs, todoIds), attemptWindow);
    return indexed;
  });
}

interface IndexState {
  id: string;
  version: number;
  indexed_version: number | null;
}

function needsIndexing(row: IndexState, wanted: Map<string, number>): boolean {
  return row.version === wanted.get(row.id) && row.indexed_version !== row.version;
}

async function readIndexState(on: Db | SqlClient, ids: string[], { lock = false } = {}): Promise<IndexState[]> {
  const statement = {
    name: lock ? "svc-lock-documents-to-index" : "svc-read-documents-to-index",
    text: `SELECT id, version, indexed_version FROM document WHERE id = ANY($1::text[]) ORDER BY id${lock ? " FOR UPDATE" : ""}`,
    values: [ids],
  };
  return queryStatement<IndexState>(on, statement);
}

/** The documents linked to pairs that are all paused. */
async function readPausedOnly(sql: SqlClient, ids: string[]): Promise<Set<string>> {
  const { rows } = await sql.query<{ document_id: string }>({
    name: "svc-read-paused-only-documents",
    text: `
      SELECT l.document_id FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
      WHERE l.document_id = ANY($1::text[])
      GROUP BY l.document_id HAVING bool_and(p.status = 'PAUSED')`,
    values: [ids],
  });
  return new Set(rows.map((row) => row.document_id));
}

/**
 * Reads the documents' titles, metadata and sections (two statements for all of them) and chunks
 * each for the generations, at the version it was read at. Calls `onLongText` before it reads a long
 * section.
 */
async function chunkDocuments(
  on: Db | SqlClient,
  rows: IndexState[],
  generations: ChunkGeneration[],
  into: Map<string, ChunkedDocument>,
  onLongText: () => void,
): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((row) => row.id);
  const run = <Row extends object>(statement: NamedStatement) => queryStatement<Row>(on, statement);
  const documents = await run<{ id: string; version: number; semantic_identifier: string; title: string | null; metadata: IndexableDocument["metadata"] }>({
    name: "svc-read-documents-for-chunks",
    text: `SELECT id, version, semantic_identifier, title, metadata FROM document WHERE id = ANY($1::text[])`,
    values: [ids],
  });
  // A long text is left out here and read in pieces below (octet_length reads the stored size, not the text).
  const sections = await run<{ document_id: string; position: number; long_text: boolean } & IndexableDocument["sections"][number]>({
    name: "svc-read-sections-for-chunks",
    text: `
      SELECT document_id, position, kind::text AS kind, CASE WHEN octet_length(text) > $2 THEN NULL ELSE text END AS text,
        octet_length(text) > $2 AS long_text, link, image_file_id AS "imageFileId"
      FROM document_section WHERE document_id = ANY($1::text[]) ORDER BY document_id, position`,
    values: [ids, LONG_TEXT_BYTES],
  });
  let readLongTexts = false;
  for (const section of sections) {
    if (!section.long_text) continue;
    onLongText();
    section.text = await readLongText(on, section.document_id, section.position);
    readLongTexts = true;
  }
  const sectionsOf = new Map<string, IndexableDocument["sections"]>();
  for (const { document_id: documentId, position: _position, long_text: _long, ...section } of sections) {
    let list = sectionsOf.get(documentId);
    if (!list) sectionsOf.set(documentId, (list = []));
    list.push(section);
  }
  sections.length = 0;
  for (const document of documents) {
    const indexable: IndexableDocument = {
      semanticIdentifier: document.semantic_identifier,
      title: document.title,
      metadata: document.metadata,
      sections: sectionsOf.get(document.id) ?? [],
    };
    // The sections' text is let go as soon as each document is chunked.
    sectionsOf.delete(document.id);
    into.set(document.id, { version: document.version, byGeneration: buildGenerationChunks(indexable, generations) });
  }
  // A long text's pieces and its chunking's garbage go before the writes add theirs.
  if (readLongTexts) collectGarbage();
}

/**
 * Sections longer than this (in bytes) are read LONG_TEXT_PIECE characters at a time. pg receives a
 * row whole into a buffer it grows by doubling, so a 20 MB section took ~64 MB of buffers at once
 * (bench/RESULTS.md, issue 44); in pieces, a few MB.
 */
const LONG_TEXT_BYTES = 4 * 1024 * 1024;
const LONG_TEXT_PIECE = 1024 * 1024;

/** A section's text read piece by piece (substr counts characters, so no piece cuts one in two). */
async function readLongText(on: Db | SqlClient, documentId: string, position: number): Promise<string> {
  const pieces: string[] = [];
  for (let start = 1; ; start += LONG_TEXT_PIECE) {
    const [row] = await queryStatement<{ piece: string | null }>(on, {
      name: "svc-read-section-piece",
      text: `SELECT substr(text, $3, $4) AS piece FROM document_section WHERE document_id = $1 AND position = $2`,
      values: [documentId, position, start, LONG_TEXT_PIECE],
    });
    const piece = row?.piece ?? "";
    pieces.push(piece);
    if (piece.length < LONG_TEXT_PIECE) break;
  }
  const text = pieces.join("");
  pieces.length = 0;
  // The pieces (and pg's buffers for them) are garbage now: before the text is chunked, not after.
  collectGarbage();
  return text;
}

/** How many of the documents each locked pair is linked to. */
async function countDocumentsPerPair(sql: SqlClient, pairs: LockedPair[], ids: string[]): Promise<CountedPair[]> {
  const { rows } = await sql.query<{ cc_pair_id: number; documents: number }>({
    name: "svc-count-documents-per-pair",
    text: `SELECT cc_pair_id, count(*)::int AS documents FROM document_by_cc_pair WHERE document_id = ANY($1::text[]) GROUP BY cc_pair_id`,
    values: [ids],
  });
  const counts = new Map(rows.map((row) => [row.cc_pair_id, row.documents]));
  return pairs.map((pair) => ({ ...pair, documents: counts.get(pair.id) ?? 0 }));
}

/**
 * Records a failed try of the job's version: `failed` with the error, one more try; the first failure
 * of the version (or of a console retry) counts in its pairs' attempts (pg-boss's retries do not).
 */
async function markDocumentFailed({
  db,
  job,
  error,
  attemptWindow,
}: {
  db: Db;
  job: IndexDocumentPayload;
  error: unknown;
  attemptWindow?: AttemptWindow;
}): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await withSqlTransaction(db, async (sql) => {
    const {
      rows: [current],
    } = await sql.query<{ version: number; indexed_version: number | null; indexing_status: string; index_attempts: number }>({
      name: "svc-lock-failed-document",
      text: `SELECT version, indexed_version, indexing_status::text AS indexing_status, index_attempts FROM document WHERE id = $1 FOR UPDATE`,
      values: [job.documentId],
    });
    if (!current || current.version !== job.version || current.indexed_version === job.version) return;
    await markDocumentTryFailed(sql, job.documentId, message);
    // pg-boss's retries of a failed version count once; the console's retry starts the tries at 0.
    if (current.indexing_status === "failed" && current.index_attempts > 0) return;
    await recordDocumentFailedEvent(sql, { documentId: job.documentId, version: job.version, error: message });
    await recordDocumentFailed(sql, await lockDocumentPairs(sql, job.documentId), message, attemptWindow);
  });
}
