import { makeArrowTable } from "@lancedb/lancedb";
import type { SearchIndex } from "./open-search-index";
import { arrow } from "./arrow";

/** The table that names the database an index was built from; never a generation's name. */
const MARKER_TABLE = "svc_index_marker";

const MARKER_SCHEMA = new arrow.Schema([new arrow.Field("database_id", new arrow.Utf8(), false)]);

/**
 * The id of the database this index was filled from, or null when the index has no marker (a new
 * or emptied index). The database keeps the same id (its `search_index_identity` row), so an index
 * directory copied from, or left behind by, another database is recognised and never served.
 */
export async function readIndexMarker({ index }: { index: SearchIndex }): Promise<string | null> {
  if (!(await index.connection.tableNames()).includes(MARKER_TABLE)) return null;
  const table = await index.connection.openTable(MARKER_TABLE);
  const [row] = (await table.query().limit(1).toArray()) as { database_id: string }[];
  return row?.database_id ?? null;
}

/** Marks the index as filled from database `databaseId`, replacing any earlier marker. */
export async function writeIndexMarker({ index, databaseId }: { index: SearchIndex; databaseId: string }): Promise<void> {
  await index.connection.createTable(MARKER_TABLE, makeArrowTable([{ database_id: databaseId }], { schema: MARKER_SCHEMA }), {
    mode: "overwrite",
  });
}

/** Drops every table of the index, the marker included: what is left is an empty index. */
export async function clearSearchIndex({ index }: { index: SearchIndex }): Promise<void> {
  for (const name of await index.connection.tableNames()) await index.connection.dropTable(name);
}
