import { describeGenerationTable, generationTableName, type GenerationTable } from "./generation-table";
import type { SearchIndex } from "./open-search-index";

/** Generation `generationId`'s table, or null when the index has none (lost: rebuild it). */
export async function openGenerationTable({
  index,
  generationId,
}: {
  index: SearchIndex;
  generationId: number;
}): Promise<GenerationTable | null> {
  const name = generationTableName(generationId);
  const names = await index.connection.tableNames();
  if (!names.includes(name)) return null;
  return describeGenerationTable(generationId, await index.connection.openTable(name), index.gates(name));
}
