import { Index, type Table } from "@lancedb/lancedb";
import { arrow } from "./arrow";
import { CHUNK_SCHEMA } from "./chunk-row";
import { describeGenerationTable, generationTableName, TEXT_SEARCH_CONFIG_KEY, type GenerationTable } from "./generation-table";
import type { SearchIndex } from "./open-search-index";
import { resolveTextSearchLanguage, type TextSearchLanguage } from "./text-search-language";

/** Field metadata LanceDB sets on the columns of a table's (unenforced) primary key. */
const PRIMARY_KEY_METADATA = "lance-schema:unenforced-primary-key";

async function hasPrimaryKey(table: Table): Promise<boolean> {
  return (await table.schema()).fields.some((field) => field.metadata.has(PRIMARY_KEY_METADATA));
}

/** The B-trees every write and delete finds its rows by (replace-documents.ts, delete-documents.ts). */
export const KEY_INDEXES: [string, () => Index][] = [
  ["document_id", () => Index.btree()],
  ["chunk_id", () => Index.btree()],
];

/**
 * Scalar indexes: the keys of writes and deletes (B-trees), and the columns of the access rule, so
 * that LanceDB answers a search's access rule from its indexes (bitmaps combined with AND/OR)
 * instead of evaluating it on every row: at a million chunks that made the prefilter 200 ms cheaper
 * (bench/RESULTS.md). It only does when every part of the clause has an index and each literal has
 * its column's type (see sqlInt32); rows written since the last compaction, which brings them up to
 * date, are read directly. The filters' columns (source, tags, dates) have none: every index adds to
 * each compaction's work, and a filtered search is rarer; a where-clause with a filter is evaluated
 * on the rows (exact, ~200 ms slower at 1 M).
 */
const SCALAR_INDEXES: [string, () => Index][] = [
  ...KEY_INDEXES,
  ["is_public", () => Index.bitmap()],
  ["cc_pair_ids", () => Index.labelList()],
  ["external_user_emails", () => Index.labelList()],
  ["external_user_group_ids", () => Index.labelList()],
];

/** The FTS index on `text`: the generation's language, and positions for phrase queries. */
export function ftsIndex(language: TextSearchLanguage): Index {
  return Index.fts({ ...language.ftsOptions, withPosition: true, baseTokenizer: "simple", lowercase: true, asciiFolding: true });
}

/**
 * Builds the SCALAR_INDEXES `table` lacks (a table created before one was added gets it here, on
 * creation or at its next optimize). Returns the columns it indexed.
 */
export async function addMissingScalarIndexes(table: Table): Promise<string[]> {
  const indexed = new Set((await table.listIndices()).flatMap((config) => config.columns));
  const added: string[] = [];
  for (const [column, config] of SCALAR_INDEXES) {
    if (indexed.has(column)) continue;
    await table.createIndex(column, { config: config() });
    added.push(column);
  }
  return added;
}

/**
 * Creates generation `generationId`'s table (empty) with its indexes: the FTS index on `text` in the
 * generation's language, with positions for phrase queries, and SCALAR_INDEXES. `chunk_id` is declared
 * the table's primary key: LanceDB then detects two concurrent merges inserting the same chunk as a
 * conflict (one is retried) instead of committing both copies. An unsupported `textSearchConfig` is
 * refused before anything is created (UNSUPPORTED_TEXT_SEARCH_CONFIG). Safe to call again for the same
 * generation: an existing table is opened and its missing indexes are added.
 */
export async function createGenerationTable({
  index,
  generationId,
  textSearchConfig,
}: {
  index: SearchIndex;
  generationId: number;
  textSearchConfig: string;
}): Promise<GenerationTable> {
  const language = resolveTextSearchLanguage(textSearchConfig);
  const schema = new arrow.Schema(CHUNK_SCHEMA.fields, new Map([[TEXT_SEARCH_CONFIG_KEY, textSearchConfig]]));
  const table = await index.connection.createEmptyTable(generationTableName(generationId), schema, {
    mode: "create",
    existOk: true,
  });
  if (!(await hasPrimaryKey(table))) await table.setUnenforcedPrimaryKey("chunk_id");
  const indexed = new Set((await table.listIndices()).flatMap((config) => config.columns));
  if (!indexed.has("text")) await table.createIndex("text", { config: ftsIndex(language) });
  await addMissingScalarIndexes(table);
  return describeGenerationTable(generationId, table, index.gates(table.name));
}
