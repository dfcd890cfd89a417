import { Index, type Table } from "@lancedb/lancedb";
import { arrow } from "./arrow";
import { CHUNK_SCHEMA } from "./chunk-row";
import { describeGenerationTable, generationTableName, TEXT_SEARCH_CONFIG_KEY, type GenerationTable } from "./generation-table";
import type { SearchIndex } from "./open-search-index";
import { resolveTextSearchLanguage } from "./text-search-language";

/** Field metadata LanceDB sets on the columns of a table's (unenforced) primary key. */
const PRIMARY_KEY_METADATA = "lance-schema:unenforced-primary-key";

async function hasPrimaryKey(table: Table): Promise<boolean> {
  return (await table.schema()).fields.some((field) => field.metadata.has(PRIMARY_KEY_METADATA));
}

/**
 * Creates generation `generationId`'s table (empty) with its indexes: the FTS index on `text` in the
 * generation's language, with positions for phrase queries, and a B-tree on `document_id` for the
 * replace and delete predicates, and one on `chunk_id`, the merge key. `chunk_id` is declared the table's primary key: LanceDB
 * then detects two concurrent merges inserting the same chunk as a conflict (one is retried) instead
 * of committing both copies. An unsupported `textSearchConfig` is refused before anything is
 * created (UNSUPPORTED_TEXT_SEARCH_CONFIG). Safe to call again for the same generation: an existing
 * table is opened and its missing indexes are added.
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
  if (!indexed.has("text")) {
    await table.createIndex("text", {
      config: Index.fts({ ...language.ftsOptions, withPosition: true, baseTokenizer: "simple", lowercase: true, asciiFolding: true }),
    });
  }
  if (!indexed.has("document_id")) await table.createIndex("document_id", { config: Index.btree() });
  if (!indexed.has("chunk_id")) await table.createIndex("chunk_id", { config: Index.btree() });
  return describeGenerationTable(generationId, table);
}
