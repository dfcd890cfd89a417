import { parseArgs } from "node:util";
import {
  cancelIndexRebuild,
  getIndexRebuildStatus,
  OPERATOR_PRINCIPAL,
  startIndexRebuild,
  startJobQueue,
  type PgBoss,
} from "@svc/core";
import type { Db } from "@svc/db";
import { IndexRebuildRequestSchema, type IndexRebuildStatus } from "@svc/schema";
import { UsageError } from "./keys";

const USAGE = `Usage:
  svc index status
  svc index rebuild [--chunk-tokens N] [--text-search-config NAME]
  svc index cancel`;

/**
 * `svc index …`: the search index's generations, through the same core functions as the REST API,
 * acting as the operator. The rebuild itself runs in the worker.
 */
export async function runIndexCommand({ db, databaseUrl }: { db: Db; databaseUrl: string }, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case "status":
      printStatus(await getIndexRebuildStatus({ db }));
      return;
    case "rebuild": {
      const { values } = parseArgs({
        args: rest,
        options: { "chunk-tokens": { type: "string" }, "text-search-config": { type: "string" } },
      });
      // The REST body's rules (bounds, lengths), so both surfaces refuse the same input.
      const request = IndexRebuildRequestSchema.safeParse({
        chunk_token_limit: values["chunk-tokens"] ?? null,
        text_search_config: values["text-search-config"] ?? null,
      });
      if (!request.success) throw new UsageError(`${request.error.issues.map((issue) => issue.message).join("; ")}\n${USAGE}`);
      const status = await withQueue(databaseUrl, (boss) =>
        startIndexRebuild({
          db,
          boss,
          principal: OPERATOR_PRINCIPAL,
          chunkTokenLimit: request.data.chunk_token_limit,
          textSearchConfig: request.data.text_search_config,
        }),
      );
      printStatus(status);
      return;
    }
    case "cancel":
      printStatus(await withQueue(databaseUrl, (boss) => cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL })));
      return;
    default:
      throw new UsageError(USAGE);
  }
}

async function withQueue<T>(databaseUrl: string, work: (boss: PgBoss) => Promise<T>): Promise<T> {
  const boss = await startJobQueue({ databaseUrl, role: "producer", poolSize: 1 });
  try {
    return await work(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

function printStatus(status: IndexRebuildStatus): void {
  const { current, rebuild, last_rebuild: last } = status;
  console.log(
    `Search reads generation ${current.generation_id} (${current.chunk_token_limit}-token chunks, "${current.text_search_config}").`,
  );
  if (rebuild) {
    console.log(
      `Rebuilding generation ${rebuild.generation_id} (${rebuild.chunk_token_limit}-token chunks, "${rebuild.text_search_config}"): ` +
        `${rebuild.docs_done} of ${rebuild.docs_total} documents done, ${rebuild.docs_failed} failed` +
        (rebuild.started_at === null ? "; waiting for the worker." : "."),
    );
  } else if (last) {
    console.log(
      `Last rebuild: generation ${last.generation_id}, ${last.status === "canceled" ? "canceled" : "completed"} at ${last.completed_at ?? "?"}: ` +
        `${last.docs_done} documents, ${last.docs_failed} failed.`,
    );
  }
  console.log(status.status);
}
