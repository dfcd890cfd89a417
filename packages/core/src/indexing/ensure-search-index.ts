import { rm } from "node:fs/promises";
import type { Db, Tx } from "@svc/db";
import { clearSearchIndex, readIndexMarker, writeIndexMarker } from "@svc/search-index";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { isAppError } from "../errors/app-error";
import { cancelIndexRebuild } from "./cancel-index-rebuild";
import type { PgBoss } from "../jobs/job-queue";
import { lockIndexGenerationsExclusive, readActiveGenerations } from "../search-index/index-generations";
import type { SearchIndexTables } from "../search-index/search-index-tables";
import { startIndexRebuild } from "../search-index/start-index-rebuild";

/** Serialises the check of workers starting together: "svc" and 2 (1 is the generation lock). */
const ENSURE_LOCK_KEY = 2;

export interface EnsureSearchIndexResult {
  /** Why the index is being refilled from PostgreSQL; null when it was found sound. */
  refillReason: string | null;
  /** The generation the refill rebuilds, when one was started. */
  generationId: number | null;
}

/**
 * At worker start: makes sure the search index in `index` belongs to this database and is complete,
 * and otherwise refills it from PostgreSQL through the rebuild path (a new generation, written by the
 * `rebuild-index` job, then swapped in; `GET …/search-index/rebuild` and `svc index status` show it).
 * The index is not trusted, and is emptied first, when
 * - it cannot be read (a damaged directory);
 * - its marker names another database (`search_index_identity`), or it has tables but no marker;
 * - it lacks the table of an active generation, or it is empty while documents are indexed (a lost
 *   or new directory);
 * - its current table holds another number of rows than PostgreSQL has chunks (an index restored from
 *   an older backup, or left behind while the database moved on). Counted under the exclusive
 *   generation lock, while no indexing transaction is writing.
 * A new index of a new database only gets its marker. Workers starting together take turns (an
 * advisory lock), so one refill starts.
 */
export async function ensureSearchIndex({
  db,
  boss,
  index,
}: {
  db: Db;
  boss: PgBoss;
  index: SearchIndexTables;
}): Promise<EnsureSearchIndexResult> {
  const reason = await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${0x737663}::int, ${ENSURE_LOCK_KEY}::int)`;
      const [identity] = await tx.$queryRaw<{ database_id: string }[]>`SELECT database_id::text FROM search_index_identity`;
      if (!identity) throw new Error("search_index_identity has no row: apply the migrations");
      const problem = await inspectIndex(tx, index, identity.database_id);
      if (problem === null) return null;
      await emptyIndex(index);
      await writeIndexMarker({ index: await index.index(), databaseId: identity.database_id });
      return problem;
    },
    { timeout: 300_000 },
  );
  if (reason === null) return { refillReason: null, generationId: null };

  // A rebuild that was running wrote into the index just emptied: start over.
  await cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL }).catch((error: unknown) => {
    if (!isAppError(error) || error.code !== "NOT_FOUND") throw error;
  });
  const status = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
  return { refillReason: reason, generationId: status.rebuild?.generationId ?? null };
}

/** What is wrong with the index, or null when it can be served. */
async function inspectIndex(tx: Tx, index: SearchIndexTables, databaseId: string): Promise<string | null> {
  let marker: string | null;
  let tableCount: number;
  try {
    const connection = await index.index();
    marker = await readIndexMarker({ index: connection });
    tableCount = (await connection.connection.tableNames()).length;
  } catch (error) {
    return `the search index cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
  const [indexed] = await tx.$queryRaw<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM document WHERE indexed_version IS NOT NULL) AS any`;
  if (marker === null) {
    if (tableCount > 0) return "the search index has no marker naming its database";
    if (indexed?.any === true) return "the search index is empty while documents are indexed";
    await writeIndexMarker({ index: await index.index(), databaseId });
    return null;
  }
  if (marker !== databaseId) return `the search index belongs to another database (${marker})`;

  await lockIndexGenerationsExclusive(tx);
  for (const generation of await readActiveGenerations(tx)) {
    let table;
    try {
      table = await index.readable(generation.id);
    } catch (error) {
      return `generation ${generation.id}'s table cannot be read (${error instanceof Error ? error.message : String(error)})`;
    }
    if (table === null) {
      if (generation.status === "current" && indexed?.any !== true) continue;
      return `the search index lacks generation ${generation.id}'s table`;
    }
    if (generation.status !== "current") continue;
    const [chunks] = await tx.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM document_chunk WHERE generation_id = ${generation.id}`;
    const rows = await table.table.countRows();
    if (BigInt(rows) !== (chunks?.count ?? 0n)) {
      return `the search index holds ${rows} rows of generation ${generation.id} where PostgreSQL has ${chunks?.count ?? 0n} chunks (an older copy)`;
    }
  }
  return null;
}

/** Drops every table; a directory too damaged for that is removed (a local one: an object store is emptied table by table only). */
async function emptyIndex(index: SearchIndexTables): Promise<void> {
  try {
    await clearSearchIndex({ index: await index.index() });
  } catch (error) {
    if (index.uri.includes("://")) throw error;
    await rm(index.uri, { recursive: true, force: true });
  }
  await index.close();
}
