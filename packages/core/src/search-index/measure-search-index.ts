import type { DbOrTx } from "@svc/db";
import { measureGenerationTable, type GenerationTableSize } from "@svc/search-index";
import { readActiveGenerations } from "./index-generations";
import type { SearchIndexTables } from "./search-index-tables";

/** One active generation's table as the index holds it now (null: the index has no table for it). */
export interface GenerationIndexSize {
  generationId: number;
  status: "current" | "building";
  size: GenerationTableSize | null;
}

/**
 * The documents, chunks and bytes of each active generation's table (the current one, and the one a
 * rebuild is building), read from the index itself. `svc index status`, GET /api/metrics and the
 * console's health page all show these, so they agree.
 */
export async function measureSearchIndex({ db, index }: { db: DbOrTx; index: SearchIndexTables }): Promise<GenerationIndexSize[]> {
  const generations = await readActiveGenerations(db);
  return Promise.all(
    generations.map(async ({ id, status }) => {
      const table = await index.readable(id);
      return { generationId: id, status: status as GenerationIndexSize["status"], size: table && (await measureGenerationTable({ generation: table })) };
    }),
  );
}
