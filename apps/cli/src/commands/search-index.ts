import { setTimeout as sleep } from "node:timers/promises";
import {
  cancelIndexRebuild,
  closeSearchIndexAt,
  getIndexRebuildStatus,
  measureSearchIndex,
  OPERATOR_PRINCIPAL,
  searchIndexAt,
  startIndexRebuild,
  type GenerationIndexSize,
} from "@svc/core";
import type { Db } from "@svc/db";
import { IndexRebuildRequestSchema, IndexRebuildStatusSchema, toWire, type Camel, type IndexGenerationSettings, type IndexRebuildProgress, type IndexRebuildStatus } from "@svc/schema";
import { UsageError } from "../cli-error";
import { cliEnv, indexDirOf } from "../env";
import { printJson, printTable } from "../output/print-table";
import { startProgressBar } from "../output/progress-bar";
import type { DatabaseContext } from "../with-database";
import { withJobQueue } from "./pairs";

/**
 * `svc index …`: the search index's generations, through the same core functions as the REST API,
 * acting as the operator. The rebuild itself runs in the worker.
 */
type IndexContext = DatabaseContext;

const WAIT_POLL_MS = 500;

/**
 * `status`: a row per generation, with what its table in the index holds (documents, chunks, bytes:
 * the figures GET /api/metrics and the console's health page show). `--json` is the REST body, as
 * the other commands print it.
 */
export async function showIndexStatus({ db }: IndexContext, options: { json?: boolean }): Promise<void> {
  const status = await getIndexRebuildStatus({ db });
  if (options.json) return printStatus(status, options);
  const uri = indexDirOf(cliEnv());
  try {
    printStatus(status, options, await measureSearchIndex({ db, index: searchIndexAt(uri) }));
  } finally {
    await closeSearchIndexAt(uri);
  }
}

export async function rebuildIndex(
  { db, databaseUrl }: IndexContext,
  options: { chunkTokens?: string; textSearchConfig?: string; wait?: boolean; json?: boolean },
): Promise<void> {
  // The REST body's rules (bounds, lengths), so both surfaces refuse the same input.
  const request = IndexRebuildRequestSchema.safeParse({
    chunk_token_limit: options.chunkTokens ?? null,
    text_search_config: options.textSearchConfig ?? null,
  });
  if (!request.success) throw new UsageError(request.error.issues.map((issue) => `--chunk-tokens/--text-search-config: ${issue.message}`).join("; "));
  const started = await withJobQueue(databaseUrl, (boss) =>
    startIndexRebuild({
      db,
      boss,
      principal: OPERATOR_PRINCIPAL,
      chunkTokenLimit: request.data.chunk_token_limit,
      textSearchConfig: request.data.text_search_config,
    }),
  );
  if (!options.wait || !started.rebuild) return printStatus(started, options);
  const ended = await waitForRebuild(db, started.rebuild.generationId);
  printStatus(ended, options);
  const last = ended.lastRebuild;
  if (last?.generationId !== started.rebuild.generationId || (last.status !== "current" && last.status !== "retired")) {
    throw new Error(`The rebuild of generation ${started.rebuild.generationId} was canceled.`);
  }
  if (last.docsFailed > 0) throw new Error(`The rebuild finished, but ${last.docsFailed} documents failed to index.`);
}

export async function cancelRebuild({ db, databaseUrl }: IndexContext, options: { json?: boolean }): Promise<void> {
  printStatus(await withJobQueue(databaseUrl, (boss) => cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL })), options);
}

/** Polls the rebuild's progress (a bar on a terminal) until it is no longer the one in progress. */
async function waitForRebuild(db: Db, generationId: number): Promise<Camel<IndexRebuildStatus>> {
  const bar = startProgressBar(`Rebuilding generation ${generationId}`, 0);
  try {
    for (;;) {
      const status = await getIndexRebuildStatus({ db });
      const rebuild = status.rebuild;
      if (rebuild?.generationId !== generationId) return status;
      bar.update(rebuild.docsDone, rebuild.docsTotal, rebuild.startedAt === null ? "waiting for the worker" : `${rebuild.docsFailed} failed`);
      await sleep(WAIT_POLL_MS);
    }
  } finally {
    bar.stop();
  }
}

/**
 * `--json` prints the status as GET /manage/admin/search-index/rebuild answers it. The table has one
 * row per generation (the current one may also be the last rebuild), with its table's size when
 * `sizes` are given.
 */
function printStatus(status: Camel<IndexRebuildStatus>, { json }: { json?: boolean }, sizes: GenerationIndexSize[] = []): void {
  if (json) return printJson(toWire(IndexRebuildStatusSchema, status));
  const { current, rebuild, lastRebuild: last } = status;
  const rows = new Map<number, { roles: string[]; settings: Camel<IndexGenerationSettings>; status: string; progress?: Camel<IndexRebuildProgress> }>();
  const add = (role: string, settings: Camel<IndexGenerationSettings>, generationStatus: string, progress?: Camel<IndexRebuildProgress>) => {
    const row = rows.get(settings.generationId);
    if (row) {
      row.roles.push(role);
      row.progress ??= progress;
    } else rows.set(settings.generationId, { roles: [role], settings, status: generationStatus, progress });
  };
  add("search reads", current, "current");
  if (rebuild) add("rebuild", rebuild, rebuild.status, rebuild);
  if (last) add("last rebuild", last, last.status, last);
  printTable(
    ["generation", "role", "status", "chunk tokens", "text search", "documents", "chunks", "size", "rebuilt", "failed", "started", "completed"],
    [...rows.values()].map(({ roles, settings, status: generationStatus, progress }) => {
      const size = sizes.find((measured) => measured.generationId === settings.generationId)?.size ?? null;
      return [
        settings.generationId,
        roles.join(", "),
        generationStatus,
        settings.chunkTokenLimit,
        settings.textSearchConfig,
        size?.documents ?? null,
        size?.chunks ?? null,
        size ? formatBytes(size.bytes) : null,
        progress ? `${progress.docsDone}/${progress.docsTotal}` : null,
        progress?.docsFailed ?? null,
        progress ? (progress.startedAt ?? (progress.status === "building" ? "waiting for the worker" : null)) : null,
        progress?.completedAt ?? null,
      ];
    }),
  );
  console.log(`\nIndex: ${status.status}`);
}

/** 1536 → "1.5 KiB": binary units, one decimal from KiB up. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
