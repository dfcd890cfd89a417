import type { Db } from "@svc/db";
import { SUPPORTED_TEXT_SEARCH_CONFIGS } from "@svc/search-index";
import type { Camel, IndexRebuildStatus } from "@svc/schema";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { rebuildIndexJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { getIndexRebuildStatus } from "./get-index-rebuild-status";
import { insertBuildingGeneration, lockIndexGenerationsExclusive, REBUILT_DOCUMENT_SQL } from "./index-generations";

/**
 * Starts a full rebuild of the search index: a new `building` generation with the given settings
 * (those left out are the current generation's) and its `rebuild-index` job, in one transaction.
 * From its commit on, indexing writes every document to both generations while the job writes the
 * documents indexed so far; search keeps reading the current generation until the swap.
 *
 * Only an unscoped admin may (403). 409 when a rebuild is already running, 422 for a text-search
 * configuration the search index cannot honour (its tokenizer's languages).
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
}): Promise<Camel<IndexRebuildStatus>> {
  requireUnscopedAdmin(principal);
  if (textSearchConfig != null) requireTextSearchConfig(textSearchConfig);
  await db.$transaction(
    async (tx) => {
      // An estimate for the progress display, counted before the lock: it reads every document row.
      const [estimate] = await tx.$queryRaw<{ total: number }[]>`
        SELECT count(*)::int AS total FROM document WHERE ${REBUILT_DOCUMENT_SQL}`;
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
      const generation = await insertBuildingGeneration(tx, {
        chunkTokenLimit: chunkTokenLimit ?? current.chunkTokenLimit,
        textSearchConfig: textSearchConfig ?? current.textSearchConfig,
        docsTotal: estimate?.total ?? 0,
      });
      await sendJob(boss, rebuildIndexJob, { generationId: generation.id }, { tx });
    },
    // The count may take a while on a large index; the lock itself is held for milliseconds.
    { timeout: 120_000 },
  );
  return getIndexRebuildStatus({ db });
}

/**
 * 422 (shaped as FastAPI's, at the request field) unless the search index can honour this
 * text-search configuration: its tokenizer's languages (and `simple`), SUPPORTED_TEXT_SEARCH_CONFIGS.
 */
function requireTextSearchConfig(name: string): void {
  if (SUPPORTED_TEXT_SEARCH_CONFIGS.includes(name)) return;
  throw new AppError("VALIDATION_FAILED", `Unsupported text-search configuration "${name}"`, {
    detail: [
      {
        type: "value_error",
        loc: ["body", "text_search_config"],
        msg: `Value error, not a text-search configuration the search index supports; one of: ${SUPPORTED_TEXT_SEARCH_CONFIGS.join(", ")}`,
        input: name,
      },
    ],
  });
}
