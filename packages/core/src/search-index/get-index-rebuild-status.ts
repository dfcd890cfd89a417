import type { DbOrTx, IndexGenerationStatus as StoredGenerationStatus } from "@svc/db";
import type { Camel, IndexGenerationSettings, IndexGenerationStatus, IndexRebuildProgress, IndexRebuildStatus } from "@svc/schema";
import type { SameValues } from "../same-values";

// The wire enum and the database enum are the same set of values (STYLE.md habit 3).
const _sameGenerationStatuses: SameValues<IndexGenerationStatus, StoredGenerationStatus> = true;

/** What the status reads of a generation. */
const generationSelect = {
  id: true,
  status: true,
  chunkTokenLimit: true,
  textSearchConfig: true,
  docsTotal: true,
  docsDone: true,
  docsFailed: true,
  createdAt: true,
  startedAt: true,
  completedAt: true,
} as const;

type GenerationRow = {
  id: number;
  status: IndexGenerationStatus;
  chunkTokenLimit: number;
  textSearchConfig: string;
  docsTotal: number;
  docsDone: number;
  docsFailed: number;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
};

/**
 * Where the search index stands: the generation search reads and its settings, the rebuild in
 * progress with its progress (documents done and failed of the total), and the last rebuild that
 * ended (swapped in or canceled), which keeps its final counts.
 */
export async function getIndexRebuildStatus({ db }: { db: DbOrTx }): Promise<Camel<IndexRebuildStatus>> {
  const active = await db.indexGeneration.findMany({
    where: { status: { in: ["current", "building"] } },
    select: generationSelect,
  });
  // Generation 1 was never rebuilt (no completed_at), so it never shows here.
  const lastEnded = await db.indexGeneration.findFirst({
    where: { status: { not: "building" }, completedAt: { not: null } },
    orderBy: { id: "desc" },
    select: generationSelect,
  });
  const current = active.find((generation) => generation.status === "current");
  if (!current) throw new Error("the search index has no current generation");
  const building = active.find((generation) => generation.status === "building");
  return {
    status: building ? "building" : "idle",
    current: toSettings(current),
    rebuild: building ? toProgress(building) : null,
    lastRebuild: lastEnded ? toProgress(lastEnded) : null,
  };
}

function toSettings(row: GenerationRow): Camel<IndexGenerationSettings> {
  return { generationId: row.id, chunkTokenLimit: row.chunkTokenLimit, textSearchConfig: row.textSearchConfig };
}

function toProgress(row: GenerationRow): Camel<IndexRebuildProgress> {
  return {
    ...toSettings(row),
    status: row.status,
    docsTotal: row.docsTotal,
    docsDone: row.docsDone,
    docsFailed: row.docsFailed,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}
