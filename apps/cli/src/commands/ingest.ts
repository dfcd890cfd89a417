import path from "node:path";
import type { IngestionResult } from "@svc/schema";
import { UsageError } from "../cli-error";
import type { CliEnv } from "../env";
import { IngestState } from "../ingest/ingest-state";
import { readIngestSources } from "../ingest/read-ingest-sources";
import { requestSvcApi, type SvcApi } from "../ingest/request-svc-api";
import { runPool } from "../ingest/run-pool";
import { waitUntilIndexed, type IndexingOutcome } from "../ingest/wait-until-indexed";
import { printJson, printTable } from "../output/print-table";
import { startProgressBar } from "../output/progress-bar";

export interface IngestOptions {
  url?: string;
  key?: string;
  pair?: number;
  concurrency: number;
  retries: number;
  wait?: boolean;
  waitTimeout: number;
  state?: string;
  force?: boolean;
  idPrefix: string;
  json?: boolean;
}

interface IngestSummary {
  sent: number;
  created: number;
  updated: number;
  skipped_unchanged: number;
  ignored_files: number;
  failed: { item: string; reason: string }[];
  seconds: number;
  documents_per_second: number;
  indexing: { indexed: number; failed: { document_id: string; reason: string }[]; still_pending: number } | null;
}

const STATE_SAVE_INTERVAL_MS = 2_000;

/**
 * `svc ingest PATH`: every document through POST /svc-api/ingestion, `concurrency` at a time, with
 * retries; documents the state file says svc already holds unchanged are skipped. Prints a summary
 * and exits 1 when any document failed (to be read, to be sent, or, with --wait, to be indexed).
 */
export async function runIngestCommand(env: CliEnv, target: string, options: IngestOptions): Promise<void> {
  const apiKey = options.key ?? env.SVC_API_KEY;
  if (!apiKey) throw new UsageError("svc ingest needs an API key: --key KEY or SVC_API_KEY (an admin or curator key).");
  const baseUrl = (options.url ?? env.SVC_URL ?? `http://localhost:${env.PORT}/api`).replace(/\/+$/, "");
  if (!URL.canParse(baseUrl)) throw new UsageError(`--url: not a URL: "${baseUrl}"`);
  const api: SvcApi = { baseUrl, apiKey, tries: options.retries };
  const statePath = options.state ?? env.SVC_INGEST_STATE ?? path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME, ".cache"), "svc", "ingest-state.json");
  const state = new IngestState(statePath, baseUrl);
  const sources = await readIngestSources(target, { idPrefix: options.idPrefix, pair: options.pair });

  const summary: IngestSummary = {
    sent: 0,
    created: 0,
    updated: 0,
    skipped_unchanged: 0,
    ignored_files: sources.ignored,
    failed: [],
    seconds: 0,
    documents_per_second: 0,
    indexing: null,
  };
  const accepted: string[] = [];
  // In the order of the input, not of completion: the summary reads like the file or folder.
  const failures: { order: number; item: string; reason: string }[] = [];
  let seen = 0;
  // Set from inside the pool's callbacks (hence the widened type: TS cannot see the assignment).
  let refusedKey = null as string | null;
  const bar = startProgressBar("Ingesting", sources.total ?? 0);
  const saveTimer = setInterval(() => state.save(), STATE_SAVE_INTERVAL_MS);
  // A Ctrl+C keeps what was accepted so far: the rerun resumes from there.
  const onSignal = (code: number) => () => {
    bar.stop();
    state.save();
    process.exit(code);
  };
  const signals = [["SIGINT", onSignal(130)], ["SIGTERM", onSignal(143)]] as const;
  for (const [signal, handler] of signals) process.once(signal, handler);

  const started = performance.now();
  try {
    await runPool(sources.items, options.concurrency, async (source) => {
      const order = (seen += 1);
      if (refusedKey) return;
      try {
        const body = await source.load();
        const documentId = body.document.id ?? body.document.semantic_identifier ?? source.label;
        const hash = IngestState.hash(body);
        if (!options.force && state.isStored(documentId, hash)) {
          summary.skipped_unchanged += 1;
          return;
        }
        const answer = await requestSvcApi<IngestionResult>(api, "POST", "/svc-api/ingestion", body);
        if (!answer.ok) {
          // A refused key refuses every document: stop instead of failing each one.
          if (answer.status === 401) refusedKey = answer.reason;
          failures.push({ order, item: source.label, reason: answer.reason });
          return;
        }
        summary.sent += 1;
        summary[answer.body.already_existed ? "updated" : "created"] += 1;
        accepted.push(answer.body.document_id);
        state.record(documentId, hash);
      } catch (error) {
        failures.push({ order, item: source.label, reason: error instanceof Error ? error.message : String(error) });
      } finally {
        bar.update(seen, Math.max(sources.total ?? 0, seen), `${failures.length} failed`);
      }
    });
  } finally {
    clearInterval(saveTimer);
    state.save();
    bar.stop();
    for (const [signal, handler] of signals) process.off(signal, handler);
  }
  summary.failed = failures.sort((a, b) => a.order - b.order).map(({ item, reason }) => ({ item, reason }));
  summary.seconds = (performance.now() - started) / 1000;
  summary.documents_per_second = summary.seconds > 0 ? summary.sent / summary.seconds : 0;
  if (refusedKey) throw new Error(`svc refused the API key (${refusedKey}); nothing more was sent.`);

  if (options.wait && accepted.length > 0) {
    const waitBar = startProgressBar("Indexing", accepted.length);
    let outcome: IndexingOutcome;
    try {
      outcome = await waitUntilIndexed(api, accepted, { concurrency: options.concurrency, timeoutMs: options.waitTimeout * 1000, bar: waitBar });
    } finally {
      waitBar.stop();
    }
    summary.indexing = {
      indexed: outcome.indexed,
      failed: outcome.failed.map(({ documentId, reason }) => ({ document_id: documentId, reason })),
      still_pending: outcome.pending.length,
    };
  }

  printSummary(summary, options.json === true);
  const indexingFailed = summary.indexing !== null && (summary.indexing.failed.length > 0 || summary.indexing.still_pending > 0);
  if (summary.failed.length > 0 || indexingFailed) process.exitCode = 1;
}

function printSummary(summary: IngestSummary, json: boolean): void {
  if (json) return printJson(summary);
  const rate = `${summary.documents_per_second.toFixed(1)} documents/s`;
  console.log(
    `Ingested ${summary.sent} (${summary.created} new, ${summary.updated} updated), skipped ${summary.skipped_unchanged} unchanged, ` +
      `failed ${summary.failed.length}, in ${summary.seconds.toFixed(1)} s (${rate}).`,
  );
  if (summary.ignored_files > 0) console.log(`Ignored ${summary.ignored_files} files of other types.`);
  if (summary.indexing) {
    const { indexed, failed, still_pending: pending } = summary.indexing;
    console.log(`Indexed ${indexed}, failed to index ${failed.length}${pending > 0 ? `, still pending after the wait ${pending}` : ""}.`);
  }
  const failures = [
    ...summary.failed.map(({ item, reason }) => [item, "not ingested", reason]),
    ...(summary.indexing?.failed ?? []).map(({ document_id: id, reason }) => [id, "not indexed", reason]),
  ];
  if (failures.length > 0) {
    console.log("");
    printTable(["item", "failure", "reason"], failures);
  }
}
