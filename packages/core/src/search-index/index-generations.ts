import { Prisma, type DbOrTx, type IndexGenerationStatus, type Tx, executeSql, selectSql, sqlAlias, type AnyTx } from "@svc/db";

/**
 * Index generations (ARCHITECTURE.md, "Index generations and rebuilds"): search reads the `current`
 * generation; a rebuild writes a `building` one and swaps it in. While one is building, indexing
 * writes every document to both.
 *
 * One advisory lock orders the generation changes against the transactions that write chunks:
 * indexing and each batch of a rebuild take it shared before they read the active generations; start,
 * swap and cancel take it exclusive. So no indexing transaction straddles a swap: it writes to exactly
 * the generations that are active when it commits. Lock order, everywhere: document rows, then this
 * lock, then pair rows (index-attempts.ts), which keeps all of them deadlock-free.
 */

/** The (key1, key2) of the advisory lock: "svc" and 1. */
const GENERATION_LOCK = Prisma.sql`${0x737663}::int, 1`;

/** Waits for generation changes (start, swap, cancel) to finish and holds them off until commit. */
export async function lockIndexGenerationsShared(tx: AnyTx): Promise<void> {
  await executeSql(tx, Prisma.sql`SELECT pg_advisory_xact_lock_shared(${GENERATION_LOCK})`);
}

/** Waits for every transaction that writes chunks to commit and holds new ones off until commit. */
export async function lockIndexGenerationsExclusive(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GENERATION_LOCK})`;
}

/**
 * The documents a rebuild's pass walks, and its `docs_total` estimate counts (on `document`,
 * unaliased): those with an indexed version, and the failed ones. Documents still queued for their
 * first indexing are left to their own jobs, which write every active generation.
 */
export const REBUILT_DOCUMENT_SQL = Prisma.sql`(indexed_version IS NOT NULL OR indexing_status = 'failed')`;

/** What writing chunks into a generation needs to know of it. */
export interface ChunkGeneration {
  id: number;
  status: IndexGenerationStatus;
  chunkTokenLimit: number;
  textSearchConfig: string;
}

/**
 * The generations documents are written to: the current one, and the building one during a rebuild.
 * Call it under lockIndexGenerationsShared (or exclusive) so the answer holds until commit.
 */
export async function readActiveGenerations(tx: AnyTx): Promise<ChunkGeneration[]> {
  return selectSql<ChunkGeneration>(
    tx,
    Prisma.sql`
      SELECT id, status::text AS status, chunk_token_limit AS "chunkTokenLimit", text_search_config AS "textSearchConfig"
      FROM index_generation WHERE status IN ('current', 'building') ORDER BY id`,
  );
}

/**
 * `index_attempt` rows (under the alias `attempt`) that count as the pair's attempts: every generation but the one being built
 * (attempts of indexing jobs, and of finished or canceled rebuilds, so history survives a swap; a
 * canceled rebuild's attempts read `canceled`). Exact within the statement's snapshot: for the statements
 * that write attempts and the pair columns derived from them (index-attempts.ts, cc-pair-rows.ts).
 */
export function servingAttemptSql(attempt: string): Prisma.Sql {
  return Prisma.sql`NOT EXISTS (
    SELECT 1 FROM index_generation building WHERE building.id = ${sqlAlias(attempt)}.generation_id AND building.status = 'building')`;
}

/** The generation a rebuild is building, null when none is. */
export async function readBuildingGenerationId(db: DbOrTx): Promise<number | null> {
  const [building] = await db.$queryRaw<{ id: number }[]>`SELECT id FROM index_generation WHERE status = 'building'`;
  return building?.id ?? null;
}

/*
 * The same two sets for the listing's per-row probes, from the building generation's id read just
 * before the statement (readBuildingGenerationId). As constants they leave the plans of the probes
 * alone: with no rebuild the conditions are TRUE and FALSE (the latter skips the probes), and during
 * one the planner reads the id's frequency from the statistics. A condition that names the building
 * generation inside the statement (a sub-select, an anti-join) is estimated from statistics in which
 * every attempt has one generation, so it looks like it matches nothing: the planner then sorts all
 * of a pair's attempts instead of walking `(cc_pair_id, id DESC)` for the latest, and a sub-select
 * in a LATERAL probe is costed once per row, pushing the plan over `jit_above_cost` (20-60 ms of JIT
 * per request). A swap or cancel between the two reads shows the attempts of one response as of
 * before it.
 */

/** `index_attempt` rows (alias `attempt`) that count as the pair's attempts (see servingAttemptSql). */
export function servingAttempt(buildingGenerationId: number | null, attempt: string): Prisma.Sql {
  return buildingGenerationId === null ? Prisma.sql`TRUE` : Prisma.sql`${sqlAlias(attempt)}.generation_id <> ${buildingGenerationId}`;
}

/** `index_attempt` rows (alias `attempt`) of the generation being built; none when no rebuild runs. */
export function buildingAttempt(buildingGenerationId: number | null, attempt: string): Prisma.Sql {
  return buildingGenerationId === null ? Prisma.sql`FALSE` : Prisma.sql`${sqlAlias(attempt)}.generation_id = ${buildingGenerationId}`;
}

/** Whether two reads of the active generations found the same ones in the same states. */
export function sameGenerations(a: ChunkGeneration[], b: ChunkGeneration[]): boolean {
  return a.length === b.length && a.every((generation, index) => generation.id === b[index]?.id && generation.status === b[index]?.status);
}

/*
 * The writes of `index_generation`: this module is their one writer. A rebuild starts a `building`
 * generation, moves its cursor and counts batch by batch, and either swaps it in (the current one
 * retires) or is canceled. Callers hold lockIndexGenerationsExclusive for start, swap and cancel.
 */

/** A new `building` generation with the rebuild's settings and its `docs_total` estimate. */
export async function insertBuildingGeneration(
  tx: Tx,
  { chunkTokenLimit, textSearchConfig, docsTotal }: { chunkTokenLimit: number; textSearchConfig: string; docsTotal: number },
): Promise<{ id: number }> {
  return tx.indexGeneration.create({
    data: { status: "building", chunkTokenLimit, textSearchConfig, docsTotal },
    select: { id: true },
  });
}

/**
 * Claims a rebuild's batch: the cursor moves to `lastId` only from `cursor`, where this run found it,
 * and only while the generation is building. Returns false when another run claimed it first.
 */
export async function claimRebuildBatch(tx: Tx, generationId: number, cursor: string | null, lastId: string): Promise<boolean> {
  const claimed = await tx.$executeRaw`
    UPDATE index_generation SET cursor_document_id = ${lastId}, started_at = COALESCE(started_at, now())
    WHERE id = ${generationId} AND status = 'building' AND cursor_document_id IS NOT DISTINCT FROM ${cursor}`;
  return claimed > 0;
}

/**
 * Counts a written batch in the rebuild's progress, and its documents in the minute's throughput
 * (`index_rebuild_minute`, the health chart's rebuild series; rows a day old go here too).
 */
export async function countRebuildBatch(tx: Tx, generationId: number, done: number, failed: number): Promise<void> {
  await tx.$executeRaw`
    UPDATE index_generation SET docs_done = docs_done + ${done}, docs_failed = docs_failed + ${failed}
    WHERE id = ${generationId}`;
  if (done === 0) return;
  await tx.$executeRaw`
    INSERT INTO index_rebuild_minute (generation_id, minute, docs_done) VALUES (${generationId}, date_trunc('minute', now()), ${done})
    ON CONFLICT (generation_id, minute) DO UPDATE SET docs_done = index_rebuild_minute.docs_done + EXCLUDED.docs_done`;
  await tx.$executeRaw`DELETE FROM index_rebuild_minute WHERE minute < now() - interval '1 day'`;
}

/** The swap: the current generation retires and the building one becomes current. Returns the retired ids. */
export async function swapGenerations(tx: Tx, generationId: number): Promise<number[]> {
  const retired = await tx.$queryRaw<{ id: number }[]>`
    UPDATE index_generation SET status = 'retired', retired_at = now() WHERE status = 'current' RETURNING id`;
  await tx.$executeRaw`
    UPDATE index_generation
    SET status = 'current', completed_at = now(), started_at = COALESCE(started_at, now()), docs_total = docs_done + docs_failed
    WHERE id = ${generationId}`;
  return retired.map((generation) => generation.id);
}

/** A canceled rebuild: indexing stops writing its generation, and its job stops at its next batch. */
export async function markGenerationCanceled(tx: Tx, generationId: number): Promise<void> {
  await tx.indexGeneration.update({ where: { id: generationId }, data: { status: "canceled", completedAt: new Date() } });
}

/** Stamps generation `generationId` as read by a search now (note-generation-searched.ts says how often). */
export async function stampGenerationSearched(db: AnyTx, generationId: number): Promise<void> {
  await executeSql(db, Prisma.sql`UPDATE index_generation SET last_searched_at = now() WHERE id = ${generationId}`);
}

/**
 * The active generations as maintenance reads them: each with whether a search read it in the last
 * `searchedWithinSeconds` (as stamped: see stampGenerationSearched) and whether a rebuild is building
 * it, in one statement.
 */
export async function readMaintainedGenerations(
  db: AnyTx,
  searchedWithinSeconds: number,
): Promise<{ id: number; searched: boolean; building: boolean }[]> {
  return selectSql<{ id: number; searched: boolean; building: boolean }>(
    db,
    Prisma.sql`SELECT id, COALESCE(last_searched_at > now() - make_interval(secs => ${searchedWithinSeconds}::float8), false) AS searched,
        status = 'building' AS building
      FROM index_generation WHERE status IN ('current', 'building') ORDER BY id`,
  );
}
