import path from "node:path";
import { createSvcClient, type SvcEventStream } from "@svc/client";
import { MAX_INGESTION_BATCH_SIZE, type ServiceInstance } from "@svc/schema";
import { UsageError } from "../cli-error";
import type { CliEnv } from "../env";
import { IngestState } from "../ingest/ingest-state";
import { mapInOrder } from "../ingest/map-in-order";
import { EmptyFileError, readIngestSources, type IngestSource } from "../ingest/read-ingest-sources";
import { requestSvcApi, type SvcApi } from "../ingest/request-svc-api";
import { runPool } from "../ingest/run-pool";
import { sendIngestionBatch } from "../ingest/send-ingestion-batch";
import { pollUntilIndexed, waitOnEventStream, type IndexingOutcome, type SentDocument } from "../ingest/wait-until-indexed";
import { printJson, printTable } from "../output/print-table";
import { startProgressBar } from "../output/progress-bar";
import { escapeTerminalText, terminalText } from "../output/terminal-text";

export interface IngestOptions {
  url?: string;
  key?: string;
  pair?: number;
  concurrency: number;
  batchSize: number;
  retries: number;
  wait?: boolean;
  waitTimeout: number;
  state?: string;
  force?: boolean;
  idPrefix: string;
  linkPrefix?: string;
  dryRun?: boolean;
  verbose?: boolean;
  json?: boolean;
}

/** What `svc ingest --json` prints. */
export interface IngestSummary {
  sent: number;
  created: number;
  updated: number;
  skipped_unchanged: number;
  /** Files with no text, skipped (relative paths). */
  skipped_empty: string[];
  ignored_files: number;
  failed: { item: string; reason: string }[];
  seconds: number;
  documents_per_second: number;
  indexing: { indexed: number; failed: { document_id: string; reason: string }[]; still_pending: number } | null;
}

const STATE_SAVE_INTERVAL_MS = 2_000;
/** Files read (and PDFs, DOCX parsed) at once, ahead of the requests. */
const LOAD_CONCURRENCY = 16;
/** A batch is sent once its JSON would pass this, whatever its count: well under svc's 32 MiB default limit. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** One document ready to send: its ingestion body as JSON, and what the state file will remember of it. */
interface PreparedDocument {
  order: number;
  item: string;
  documentId: string;
  /** The pair it is sent to (the default pair when the body names none). */
  ccPairId: number;
  hash: string;
  json: string;
}

type Prepared =
  | { kind: "send"; document: PreparedDocument }
  | { kind: "skip"; item: string }
  | { kind: "empty"; item: string }
  | { kind: "fail"; order: number; item: string; reason: string };

/** The pair a body without `cc_pair_id` goes to. */
const DEFAULT_PAIR_ID = 1;

/** Ignored files named without --verbose. */
const IGNORED_NAMED = 5;

/**
 * `svc ingest PATH`: documents through POST /svc-api/ingestion/batch, `batchSize` per request and
 * `concurrency` requests at a time, with retries; documents the state file says svc already holds
 * unchanged are skipped. Prints a summary and exits 1 when any document failed (to be read, to be
 * accepted, or, with --wait, to be indexed).
 */
export async function runIngestCommand(env: CliEnv, target: string, options: IngestOptions): Promise<void> {
  const apiKey = options.key ?? env.SVC_API_KEY;
  if (!apiKey) throw new UsageError("svc ingest needs an API key: --key KEY or SVC_API_KEY (an admin or curator key).");
  const baseUrl = (options.url ?? env.SVC_URL ?? `http://localhost:${env.PORT}/api`).replace(/\/+$/, "");
  if (!URL.canParse(baseUrl)) throw new UsageError(`--url: not a URL: "${baseUrl}"`);
  if (options.batchSize > MAX_INGESTION_BATCH_SIZE) throw new UsageError(`--batch-size: at most ${MAX_INGESTION_BATCH_SIZE} documents per request.`);
  if (options.linkPrefix !== undefined && !URL.canParse(options.linkPrefix)) throw new UsageError(`--link-prefix: not a URL: "${options.linkPrefix}"`);
  const api: SvcApi = { baseUrl, apiKey, tries: options.retries };
  // Before anything is read or skipped: a wrong key or URL fails now, with svc's reason.
  const instance = await requestSvcApi<ServiceInstance>(api, "GET", "/svc-api/instance");
  if (!instance.ok) throw new Error(`svc at ${baseUrl} did not accept the key or could not be reached: ${instance.reason}`);
  const instanceId = instance.body.instance_id;
  const statePath = options.state ?? env.SVC_INGEST_STATE ?? path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME, ".cache"), "svc", "ingest-state.json");
  const state = new IngestState(statePath, baseUrl, instanceId);
  if (state.replacedInstance && !options.force) {
    const { instanceId: previous, documents } = state.replacedInstance;
    console.error(
      terminalText`The resume state for ${baseUrl} was recorded against svc instance ${previous} (${documents} documents); this is ${instanceId} ` +
        "(a reset database or another server): it is ignored, and every document is sent.",
    );
  }
  const sources = await readIngestSources(target, { idPrefix: options.idPrefix, pair: options.pair, linkPrefix: options.linkPrefix });
  if (options.dryRun) return printDryRun(sources, state, options);

  const summary: IngestSummary = {
    sent: 0,
    created: 0,
    updated: 0,
    skipped_unchanged: 0,
    skipped_empty: [],
    ignored_files: sources.ignored.length,
    failed: [],
    seconds: 0,
    documents_per_second: 0,
    indexing: null,
  };
  const accepted: SentDocument[] = [];
  // In the order of the input, not of completion: the summary reads like the file or folder.
  const failures: { order: number; item: string; reason: string }[] = [];
  let read = 0;
  let done = 0;
  // Set from inside the pool's callbacks (hence the widened type: TS cannot see the assignment).
  let refusedKey = null as string | null;
  const bar = startProgressBar("Ingesting", sources.total ?? 0);
  const advance = (count: number) => {
    done += count;
    bar.update(done, Math.max(sources.total ?? 0, done), `${failures.length} failed`);
  };
  const saveTimer = setInterval(() => state.save(), STATE_SAVE_INTERVAL_MS);
  // A Ctrl+C keeps what was accepted so far: the rerun resumes from there.
  const onSignal = (code: number) => () => {
    bar.stop();
    state.save();
    process.exit(code);
  };
  const signals = [["SIGINT", onSignal(130)], ["SIGTERM", onSignal(143)]] as const;
  for (const [signal, handler] of signals) process.once(signal, handler);

  // With --wait, svc's event stream is opened before anything is sent: every document's end is told
  // on it after this point. Refused (every stream of the server taken), the wait polls instead.
  const streamStop = new AbortController();
  let events: SvcEventStream | null = null;
  if (options.wait) {
    const opening = createSvcClient({ baseUrl, apiKey }).events({ types: ["document.indexed", "document.failed", "document.deleted"], signal: streamStop.signal });
    events = await opening.opened().then(
      () => opening,
      () => null,
    );
  }

  const prepare = (source: IngestSource) => prepareSource(source, (read += 1), state, options.force === true);

  // Documents that fail to be read, or are skipped, are counted as they come; the others are grouped
  // into batches of up to batchSize documents and MAX_BATCH_BYTES.
  async function* batches(): AsyncIterable<PreparedDocument[]> {
    let batch: PreparedDocument[] = [];
    let bytes = 0;
    for await (const prepared of mapInOrder(sources.items, LOAD_CONCURRENCY, prepare)) {
      if (refusedKey) return;
      if (prepared.kind === "skip") summary.skipped_unchanged += 1;
      if (prepared.kind === "empty") summary.skipped_empty.push(prepared.item);
      if (prepared.kind === "fail") failures.push(prepared);
      if (prepared.kind !== "send") {
        advance(1);
        continue;
      }
      if (batch.length > 0 && bytes + prepared.document.json.length > MAX_BATCH_BYTES) {
        yield batch;
        [batch, bytes] = [[], 0];
      }
      batch.push(prepared.document);
      bytes += prepared.document.json.length;
      if (batch.length >= options.batchSize) {
        yield batch;
        [batch, bytes] = [[], 0];
      }
    }
    if (batch.length > 0) yield batch;
  }

  const started = performance.now();
  try {
    await runPool(batches(), options.concurrency, async (batch) => {
      if (refusedKey) return;
      const answer = await sendIngestionBatch(api, batch.map((document) => document.json));
      // A refused key refuses every document: stop instead of failing each one.
      refusedKey ??= answer.refusedKey;
      answer.outcomes.forEach((outcome, index) => {
        const document = batch[index] as PreparedDocument;
        if (!outcome.ok) return void failures.push({ order: document.order, item: document.item, reason: outcome.reason });
        summary.sent += 1;
        summary[outcome.alreadyExisted ? "updated" : "created"] += 1;
        accepted.push({ documentId: outcome.documentId, ccPairId: document.ccPairId });
        state.record(document.documentId, document.hash);
      });
      advance(batch.length);
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
    const waitOptions = {
      concurrency: options.concurrency,
      timeoutMs: options.waitTimeout * 1000,
      bar: waitBar,
      // stderr, as the bar (off the bar's line): stdout keeps the summary alone (--json).
      onPaused: ({ id, name, waiting }: { id: number; name: string; waiting: number }) =>
        console.error(
          (process.stderr.isTTY ? "\n" : "") +
            escapeTerminalText(
              `Pair ${id} (${name}) is paused: ${waiting} document${waiting === 1 ? "" : "s"} wait for \`svc pairs resume ${id}\`; still waiting (--wait-timeout ${options.waitTimeout} s).`,
            ),
        ),
    };
    try {
      outcome = events
        ? await waitOnEventStream(api, events, accepted, waitOptions)
        : await pollUntilIndexed(api, [...new Set(accepted.map((document) => document.documentId))], waitOptions);
    } finally {
      waitBar.stop();
      streamStop.abort();
    }
    summary.indexing = {
      indexed: outcome.indexed,
      failed: outcome.failed.map(({ documentId, reason }) => ({ document_id: documentId, reason })),
      still_pending: outcome.pending.length,
    };
  }
  streamStop.abort();

  printSummary(summary, options.json === true);
  if (!options.json) printIgnored(sources.ignored, options.verbose === true);
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
  if (summary.skipped_empty.length > 0) console.log(terminalText`Skipped ${summary.skipped_empty.length} empty files (no text): ${summary.skipped_empty.join(", ")}.`);
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

/** One source read and hashed: to send, to skip (stored unchanged, or empty), or failed to read. Never rejects. */
async function prepareSource(source: IngestSource, order: number, state: IngestState, force: boolean): Promise<Prepared> {
  try {
    const body = await source.load();
    const documentId = body.document.id ?? body.document.semantic_identifier ?? source.label;
    const json = JSON.stringify(body);
    const hash = IngestState.hash(json);
    if (!force && state.isStored(documentId, hash)) return { kind: "skip", item: source.label };
    return { kind: "send", document: { order, item: source.label, documentId, ccPairId: body.cc_pair_id ?? DEFAULT_PAIR_ID, hash, json } };
  } catch (error) {
    if (error instanceof EmptyFileError) return { kind: "empty", item: source.label };
    return { kind: "fail", order, item: source.label, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Files of other types, named: all with --verbose, else the first few and how many more. */
function printIgnored(ignored: string[], verbose: boolean): void {
  if (ignored.length === 0) return;
  const named = verbose ? ignored : ignored.slice(0, IGNORED_NAMED);
  const more = ignored.length - named.length;
  console.log(terminalText`Ignored ${ignored.length} files of other types: ${named.join(", ")}` + (more > 0 ? `, and ${more} more (--verbose names them).` : "."));
}

/** `--dry-run`: every item and what a real run would do with it, nothing sent and the state left as it was. */
async function printDryRun(sources: Awaited<ReturnType<typeof readIngestSources>>, state: IngestState, options: IngestOptions): Promise<void> {
  const rows: string[][] = [];
  let order = 0;
  for await (const prepared of mapInOrder(sources.items, LOAD_CONCURRENCY, (source) => prepareSource(source, (order += 1), state, options.force === true))) {
    if (prepared.kind === "send") rows.push(["send", prepared.document.item, ""]);
    else if (prepared.kind === "skip") rows.push(["skip", prepared.item, "unchanged since it was sent"]);
    else if (prepared.kind === "empty") rows.push(["skip", prepared.item, "empty: no text"]);
    else rows.push(["fail", prepared.item, prepared.reason]);
  }
  const named = options.verbose ? sources.ignored : sources.ignored.slice(0, IGNORED_NAMED);
  for (const item of named) rows.push(["ignore", item, "not a type svc ingest reads"]);
  if (options.json) return printJson({ dry_run: true, items: rows.map(([action, item, note]) => ({ action, item, note })), ignored_files: sources.ignored.length });
  printTable(["action", "item", "note"], rows);
  const count = (action: string) => rows.filter((row) => row[0] === action).length;
  console.log(`Dry run: would send ${count("send")}, skip ${count("skip")}, fail ${count("fail")}, ignore ${sources.ignored.length}; nothing was sent.`);
  if (!options.verbose && sources.ignored.length > named.length) printIgnored(sources.ignored, false);
}
