import { generationTableName } from "./generation-table";
import type { SearchIndex } from "./open-search-index";

/** Removes generation `generationId`'s table (a retired or canceled generation); absent is fine. */
export async function dropGenerationTable({ index, generationId }: { index: SearchIndex; generationId: number }): Promise<void> {
  const name = generationTableName(generationId);
  if ((await index.connection.tableNames()).includes(name)) await index.connection.dropTable(name);
}
