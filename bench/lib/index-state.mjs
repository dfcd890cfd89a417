// Waits on svc's indexing as benchmarks that search through REST need it: every document indexed,
// then every row merged into the search index, so queries meet the index in its steady state.
// Imports @svc/search-index (TypeScript sources): run under `node --import tsx`.
import { closeSearchIndex, openGenerationTable, openSearchIndex } from "@svc/search-index";

const POLL_MS = 500;

/** Waits until no document is queued or indexing (a failed one is retried by pg-boss: it only counts at the deadline). */
export async function waitForIndexed(db, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { rows: [probe] } = await db.query(`
      SELECT EXISTS (SELECT 1 FROM document WHERE indexing_status IN ('queued', 'indexing', 'failed')) AS pending`);
    if (!probe.pending) return;
    if (Date.now() > deadline) throw new Error("documents still pending after the deadline");
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Once every document is indexed: waits until the worker has merged every row into the search index
 * (LanceDB's FTS index has no unindexed rows). Returns the seconds waited, or null when the current
 * generation has no LanceDB table (search on PostgreSQL).
 */
export async function waitForMerged(db, indexDir, deadlineMs) {
  const { rows: [generation] } = await db.query("SELECT id FROM index_generation WHERE status = 'current'");
  const index = await openSearchIndex({ uri: indexDir });
  try {
    const table = await openGenerationTable({ index, generationId: generation.id });
    if (table === null) return null;
    const started = performance.now();
    const deadline = Date.now() + deadlineMs;
    while (((await table.table.indexStats("text_idx"))?.numUnindexedRows ?? 0) > 0) {
      if (Date.now() > deadline) throw new Error("index rows still unmerged after the deadline");
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return (performance.now() - started) / 1000;
  } finally {
    closeSearchIndex(index);
  }
}
