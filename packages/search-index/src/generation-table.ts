import type { Table } from "@lancedb/lancedb";
import { SearchIndexError } from "./search-index-error";
import { resolveTextSearchLanguage, type TextSearchLanguage } from "./text-search-language";
import type { TableGate } from "./write-gate";

/** One index generation's table, with the language it was built for and its write gate. */
export interface GenerationTable {
  generationId: number;
  table: Table;
  language: TextSearchLanguage;
  /** Keeps the table's compaction and its updating writes apart (see TableGate). */
  gate: TableGate;
}

/** Schema metadata key holding the generation's text_search_config, so the table describes itself. */
export const TEXT_SEARCH_CONFIG_KEY = "svc.text_search_config";

/** The table of generation `generationId`: one name per generation, never reused by another. */
export function generationTableName(generationId: number): string {
  if (!Number.isSafeInteger(generationId) || generationId < 0) {
    throw new SearchIndexError("INVALID_ARGUMENT", `Invalid index generation id ${String(generationId)}.`);
  }
  return `chunks_g${generationId}`;
}

/** Wraps an opened table, reading the language it was created with from its schema metadata. */
export async function describeGenerationTable(generationId: number, table: Table, gate: TableGate): Promise<GenerationTable> {
  const schema = await table.schema();
  const textSearchConfig = schema.metadata.get(TEXT_SEARCH_CONFIG_KEY);
  if (textSearchConfig === undefined) {
    throw new SearchIndexError("INVALID_ARGUMENT", `Table ${table.name} is not an index generation table.`);
  }
  return { generationId, table, language: resolveTextSearchLanguage(textSearchConfig), gate };
}
