import type { GenerationTable } from "./generation-table";

/** What one generation's table holds: its chunk rows, the documents they belong to, and its bytes. */
export interface GenerationTableSize {
  documents: number;
  chunks: number;
  /** The data, index and overlay files the table's current version references (LanceDB's `stats()`). */
  bytes: number;
}

/**
 * Counts a generation's table. A document's rows are written whole and numbered from 0 (as svc's
 * indexing numbers them), so its documents are its rows with `chunk_index = 0`. Old versions that
 * the worker's optimize has not pruned yet are not in `bytes`.
 */
export async function measureGenerationTable({ generation }: { generation: GenerationTable }): Promise<GenerationTableSize> {
  const [stats, documents] = await Promise.all([generation.table.stats(), generation.table.countRows("chunk_index = 0")]);
  return { documents, chunks: stats.numRows, bytes: stats.totalBytes };
}
