import type { Db, DbOrTx } from "@svc/db";
import type { IndexRebuildStatus } from "@svc/schema";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { rebuildIndexJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { getIndexRebuildStatus } from "./get-index-rebuild-status";
import { lockIndexGenerationsExclusive } from "./index-generations";

/**
 * Starts a full rebuild of the search index: a new `building` generation with the given settings
 * (those left out are the current generation's) and its `rebuild-index` job, in one transaction.
 * From its commit on, indexing writes every document to both generations while the job writes the
 * documents indexed so far; search keeps reading the current generation until the swap.
 *
 * Only an unscoped admin may (403). 409 when a rebuild is already running, 422 for a text-search
 * configuration the server lacks.
 */
export async function startIndexRebuild({
  db,
  boss,
  principal,
  chunkTokenLimit,
  textSearchConfig,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  chunkTokenLimit?: number | null;
  textSearchConfig?: string | null;
}): Promise<IndexRebuildStatus> {
  requireUnscopedAdmin(principal);
  if (textSearchConfig != null) await requireTextSearchConfig(db, textSearchConfig);
  await db.$transaction(
    async (tx) => {
      // An estimate for the progress display, counted before the lock: it reads every document row.
      const [estimate] = await tx.$queryRaw<{ total: number }[]>`
        SELECT count(*)::int AS total FROM document WHERE indexed_version IS NOT NULL`;
      await lockIndexGenerationsExclusive(tx);
      const active = await tx.indexGeneration.findMany({
        where: { status: { in: ["current", "building"] } },
        select: { id: true, status: true, chunkTokenLimit: true, textSearchConfig: true },
      });
      const building = active.find((generation) => generation.status === "building");
      if (building) {
        throw new AppError("CONFLICT", `A rebuild of the search index is already running (generation ${building.id}).`);
      }
      const current = active.find((generation) => generation.status === "current");
      if (!current) throw new Error("the search index has no current generation");
      const generation = await tx.indexGeneration.create({
        data: {
          status: "building",
          chunkTokenLimit: chunkTokenLimit ?? current.chunkTokenLimit,
          textSearchConfig: textSearchConfig ?? current.textSearchConfig,
          docsTotal: estimate?.total ?? 0,
        },
        select: { id: true },
      });
      await sendJob(boss, rebuildIndexJob, { generationId: generation.id }, { tx });
    },
    // The count may take a while on a large index; the lock itself is held for milliseconds.
    { timeout: 120_000 },
  );
  return getIndexRebuildStatus({ db });
}

/** 422 (shaped as FastAPI's, at the request field) unless PostgreSQL has this text-search configuration. */
async function requireTextSearchConfig(db: DbOrTx, name: string): Promise<void> {
  const configs = await db.$queryRaw<{ name: string }[]>`
    SELECT c.cfgname AS name FROM pg_ts_config c WHERE pg_ts_config_is_visible(c.oid) ORDER BY c.cfgname`;
  if (configs.some((config) => config.name === name)) return;
  const known = configs.map((config) => config.name).join(", ");
  throw new AppError("VALIDATION_FAILED", `Unknown text-search configuration "${name}"`, {
    detail: [
      {
        type: "value_error",
        loc: ["body", "text_search_config"],
        msg: `Value error, not a text-search configuration of this server; one of: ${known}`,
        input: name,
      },
    ],
  });
}
