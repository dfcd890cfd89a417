import { setTimeout as sleep } from "node:timers/promises";
import { cancelIndexRebuild, getIndexRebuildStatus, OPERATOR_PRINCIPAL, startIndexRebuild } from "@svc/core";
import type { Db } from "@svc/db";
import { IndexRebuildRequestSchema, IndexRebuildStatusSchema, toWire, type Camel, type IndexRebuildProgress, type IndexRebuildStatus } from "@svc/schema";
import { UsageError } from "../cli-error";
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

export async function showIndexStatus({ db }: IndexContext, options: { json?: boolean }): Promise<void> {
  printStatus(await getIndexRebuildStatus({ db }), options);
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

/** `--json` prints the status as GET /manage/admin/search-index/rebuild answers it. */
function printStatus(status: Camel<IndexRebuildStatus>, { json }: { json?: boolean }): void {
  if (json) return printJson(toWire(IndexRebuildStatusSchema, status));
  const { current, rebuild, lastRebuild: last } = status;
  const progress = (role: string, generation: Camel<IndexRebuildProgress>) => [
    generation.generationId,
    role,
    generation.status,
    generation.chunkTokenLimit,
    generation.textSearchConfig,
    `${generation.docsDone}/${generation.docsTotal}`,
    generation.docsFailed,
    generation.startedAt ?? (generation.status === "building" ? "waiting for the worker" : null),
    generation.completedAt,
  ];
  const rows = [[current.generationId, "search reads", "current", current.chunkTokenLimit, current.textSearchConfig, null, null, null, null]];
  if (rebuild) rows.push(progress("rebuild", rebuild));
  if (last) rows.push(progress("last rebuild", last));
  printTable(["generation", "role", "status", "chunk tokens", "text search", "docs done", "failed", "started", "completed"], rows);
  console.log(`\nIndex: ${status.status}`);
}
