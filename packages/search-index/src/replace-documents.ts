import type { Table as LanceTable } from "@lancedb/lancedb";
import { chunkKey, toChunkTable, type ChunkRow } from "./chunk-row";
import type { GenerationTable } from "./generation-table";
import { retryCommitConflict } from "./retry-commit-conflict";
import { SearchIndexError } from "./search-index-error";
import { sqlIn, sqlInt32, sqlString } from "./sql-literal";
import { perTable } from "./per-table";

/**
 * Most rows, and most characters of searched text, one write carries. LanceDB takes a write's input
 * as one Arrow IPC buffer and holds several working copies of it while it joins and writes (~6x the
 * text: a 20 MiB document's 15,000 rows in one merge took the worker from 290 to 400 MB anonymous
 * memory); a batch larger than this is written in several commits instead. What a slice allocates
 * (rows, searched texts, Arrow buffers) is garbage once it is committed, and V8 frees it late: each
 * slice of 2 M characters left ~5 MB behind until a full collection, so slices stay small.
 */
const SLICE_ROWS = 1_000;
const SLICE_CHARS = 1_000_000;
/** Most rows and characters one group commit of appends carries (several callers' slices). */
const GROUP_ROWS = 1_000;
const GROUP_CHARS = 2_000_000;

/**
 * Replaces the rows of a batch of documents with `chunks`: the batch's chunks are upserted on chunk_id
 * (document and chunk index), then the rows those documents no longer have (a document that shrank, or
 * one listed with no chunks) are deleted in a last commit, only when there are any. A batch of at most
 * SLICE_ROWS rows and SLICE_CHARS characters (every batch of ordinary documents) is upserted in one
 * commit, so each document's current chunks change entirely before or entirely after for readers; a
 * larger one, slice by slice, one commit each, so its memory stays that of one slice (while it is
 * written, a re-indexed large document shows some new chunks beside its old ones; the job's PostgreSQL
 * transaction commits after the last).
 *
 * Both steps find their rows through the B-tree indexes on chunk_id and document_id, so a commit costs
 * about the same at a million rows as at a thousand. (A single merge that also deletes "rows not matched
 * by the source" joins the whole table on every commit: its cost grew with the table, 2.3 s per batch
 * of 50 documents at 1 M rows; bench/RESULTS.md, "bench/search/replace".) Until the last commit, a
 * document that shrank still shows its old last chunks beside its new ones.
 *
 * Each commit waits for a compaction of the table in progress (its TableGate): it would make it fail.
 *
 * `chunks` is read once, slice by slice: a caller that builds the rows as they are read holds only a
 * slice of them. Running the same batch again leaves the same rows, so a retried job is harmless.
 */
export async function replaceDocuments({
  generation,
  documentIds,
  chunks,
  afterSlice,
}: {
  generation: GenerationTable;
  /** Every document the batch replaces, including those that now have no chunks. */
  documentIds: string[];
  chunks: Iterable<ChunkRow>;
  /** Called after each slice of a batch written in several (see writeSlices). */
  afterSlice?: () => void;
}): Promise<void> {
  const ids = new Set(documentIds);
  if (ids.size === 0) {
    for (const chunk of chunks) outsideBatch(chunk);
    return;
  }
  const { table, gate } = generation;
  const keptIndexes = new Map<string, number[]>();
  const kept = function* () {
    for (const chunk of chunks) {
      if (!ids.has(chunk.documentId)) outsideBatch(chunk);
      let indexes = keptIndexes.get(chunk.documentId);
      if (!indexes) keptIndexes.set(chunk.documentId, (indexes = []));
      indexes.push(chunk.chunkIndex);
      yield chunk;
    }
  };
  await writeSlices(
    kept(),
    async (rows) => {
      const data = toChunkTable(rows);
      await gate.write(() => retryCommitConflict(() => table.mergeInsert("chunk_id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data)));
    },
    afterSlice,
  );
  const stale = staleRows(ids, keptIndexes);
  const found = await table.query().where(stale).select(["chunk_id"]).limit(1).toArray();
  if (found.length > 0) await gate.write(() => retryCommitConflict(() => table.delete(stale)));
}

/**
 * Adds the rows of documents the table holds no rows of (the caller knows: write-index-rows.ts), in
 * slices as replaceDocuments writes them, without its merge on chunk_id: that merge joins the batch
 * with every row written since the last optimize (the B-tree covers only merged rows), so its cost
 * grew with the unmerged tail (65 ms a batch of 50 documents against 13 ms for an add, at 68,000
 * unmerged rows; bench/RESULTS.md, issue 19). Adding rows a table already holds would double them.
 *
 * Appends to one table from this process are group-committed (AppendQueue): a slice that comes
 * while another commit is in flight waits for it, then goes in one commit with every slice that
 * waited alongside it. Resolves once this call's rows are committed.
 */
export async function appendDocuments({
  generation,
  chunks,
  afterSlice,
}: {
  generation: GenerationTable;
  chunks: Iterable<ChunkRow>;
  /** Called after each slice of a batch written in several (see writeSlices). */
  afterSlice?: () => void;
}): Promise<void> {
  const queue = appendQueue(generation.table);
  await writeSlices(chunks, (rows, chars) => queue.append(rows, chars), afterSlice);
}

/** Each open table's queue of appends (the old handle's drains when a table is opened again). */
const appendQueue = perTable((table) => new AppendQueue(table));

interface WaitingSlice {
  rows: ChunkRow[];
  chars: number;
  committed: () => void;
  failed: (error: unknown) => void;
}

/**
 * Group commit of one table's appends. Each commit has a fixed cost (a data file, a manifest, a
 * version: ~9 ms of CPU against ~0.23 ms a document, bench/search/write-forms.mjs --documents), and
 * the worker's pollers each commit their batch: under load they come together, and one commit
 * serves them all (at most GROUP_ROWS rows and GROUP_CHARS characters); when they do not, a slice is
 * committed at once, as before. A failed commit fails every slice in it: each caller's job is retried.
 */
class AppendQueue {
  private waiting: WaitingSlice[] = [];
  private committing = false;

  constructor(private readonly table: LanceTable) {}

  append(rows: ChunkRow[], chars: number): Promise<void> {
    return new Promise((committed, failed) => {
      this.waiting.push({ rows, chars, committed, failed });
      if (!this.committing) void this.commitWaiting();
    });
  }

  private async commitWaiting(): Promise<void> {
    this.committing = true;
    while (this.waiting.length > 0) {
      const group = this.takeGroup();
      try {
        const data = toChunkTable(group.flatMap((slice) => slice.rows));
        await retryCommitConflict(() => this.table.add(data));
        for (const slice of group) slice.committed();
      } catch (error) {
        for (const slice of group) slice.failed(error);
      }
    }
    this.committing = false;
  }

  /** The first waiting slice and those after it that fit in one group's bounds with it. */
  private takeGroup(): WaitingSlice[] {
    let rows = 0;
    let chars = 0;
    let count = 0;
    for (const slice of this.waiting) {
      if (count > 0 && (rows + slice.rows.length > GROUP_ROWS || chars + slice.chars > GROUP_CHARS)) break;
      rows += slice.rows.length;
      chars += slice.chars;
      count++;
    }
    return this.waiting.splice(0, count);
  }
}

/**
 * Writes `chunks` slice by slice (at most SLICE_ROWS rows and SLICE_CHARS characters of text), one
 * write each, given the slice's rows and their characters of text; the rows are read as the slices fill.
 * When there is more than one slice, `afterSlice` runs after each (the caller releases what the slice
 * left behind: the worker collects V8's garbage there).
 */
async function writeSlices(
  chunks: Iterable<ChunkRow>,
  write: (rows: ChunkRow[], chars: number) => Promise<unknown>,
  afterSlice: () => void = () => undefined,
): Promise<void> {
  let slice: ChunkRow[] = [];
  let chars = 0;
  let written = 0;
  const flush = async () => {
    const [rows, rowsChars] = [slice, chars];
    slice = [];
    chars = 0;
    await write(rows, rowsChars);
    written += 1;
  };
  for (const chunk of chunks) {
    slice.push(chunk);
    chars += chunk.text.length;
    if (slice.length >= SLICE_ROWS || chars >= SLICE_CHARS) {
      await flush();
      afterSlice();
    }
  }
  if (slice.length > 0) await flush();
  if (written > 1) afterSlice();
}

/**
 * The batch's rows that are not among its chunks. A document whose chunks are numbered 0 … n-1 (as
 * indexing numbers them) keeps the rows below n, and the documents are grouped by n, so the predicate
 * stays short however many chunks the batch has: a list of 15,000 chunk ids took LanceDB ~60 MB to
 * plan and evaluate. Other documents list their chunk ids.
 */
function staleRows(ids: Set<string>, keptIndexes: Map<string, number[]>): string {
  const byCount = new Map<number, string[]>();
  const listed: string[] = [];
  for (const [documentId, indexes] of keptIndexes) {
    const numbered = new Set(indexes.filter((index) => index >= 0 && index < indexes.length)).size === indexes.length;
    if (numbered) {
      let group = byCount.get(indexes.length);
      if (!group) byCount.set(indexes.length, (group = []));
      group.push(sqlString(documentId));
    } else {
      for (const index of indexes) listed.push(sqlString(chunkKey({ documentId, chunkIndex: index })));
    }
  }
  const kept = [...byCount].map(([count, documents]) => `(${sqlIn("document_id", documents)} AND chunk_index < ${sqlInt32(count)})`);
  if (listed.length > 0) kept.push(sqlIn("chunk_id", listed));
  const batch = sqlIn("document_id", [...ids].map(sqlString));
  return kept.length === 0 ? batch : `${batch} AND NOT (${kept.join(" OR ")})`;
}

function outsideBatch(chunk: ChunkRow): never {
  throw new SearchIndexError("INVALID_ARGUMENT", `Chunk of document ${chunk.documentId} is outside the batch.`);
}

