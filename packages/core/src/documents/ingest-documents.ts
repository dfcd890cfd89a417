import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Db } from "@svc/db";
import {
  boundValidationErrorBody,
  IngestionDocumentSchema,
  MAX_BODY_VALIDATION_MS,
  MAX_INGESTION_BATCH_SIZE,
  MAX_VALIDATION_ERROR_BODY_BYTES,
  MAX_VALIDATION_ERROR_ITEMS,
  TOO_MANY_ERRORS_TYPE,
  validateBody,
  ValidationTimeoutError,
  type Camel,
  type IngestionBatchItemResult,
  type IngestionBatchResponse,
  type ValidationError,
} from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError, isAppError } from "../errors/app-error";
import type { PgBoss } from "../jobs/job-queue";
import { prepareDocumentWrites, type IngestionInput } from "./prepare-document-writes";
import { documentOutsideScope, findWritesOutsideScope, ingestionResultOf, writeDocuments, type DocumentWrite } from "./write-documents";

/** Longest the items' validation holds the event loop before letting other requests run. */
const VALIDATION_SLICE_MS = 10;

/** Documents per write transaction of a bulk call. */
const WRITE_CHUNK_SIZE = 250;

interface PendingWrite {
  index: number;
  write: DocumentWrite;
}

/**
 * Bulk ingestion (docs/decisions.md "Bulk ingestion"): each document is validated, checked and
 * stored exactly as `ingestDocument` would, independently of the others, and gets its own result in
 * request order. The accepted ones are written together (one statement, one job insert and one commit
 * per 250 of them in the usual case), and are durable with their jobs when this returns.
 */
export async function ingestDocuments({
  db,
  boss,
  principal,
  documents,
  validationMs = MAX_BODY_VALIDATION_MS,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  documents: readonly unknown[];
  /** The work the items' validation may take in all (the web process's SVC_BODY_VALIDATION_MS). */
  validationMs?: number;
}): Promise<Camel<IngestionBatchResponse>> {
  if (documents.length > MAX_INGESTION_BATCH_SIZE) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `A batch holds at most ${MAX_INGESTION_BATCH_SIZE} documents; this one has ${documents.length}.`,
    );
  }
  const results: Array<Camel<IngestionBatchItemResult> | undefined> = Array.from({ length: documents.length });
  const inputs: Array<IngestionInput & { index: number }> = [];
  const errors = new ItemErrors();
  // An invalid item costs tens of milliseconds to validate and report (each capped as the single
  // call's 422 is); a thousand of them in one go would hold the event loop for half a minute, every
  // other request and health check waiting. Between items the loop serves others every few ms, and
  // the slices together get `validationMs`, however the body is shaped (one item of a
  // million sections included). Nothing is stored until every item is validated.
  let spentMs = 0;
  let sliceStartedAt = performance.now();
  for (const [index, document] of documents.entries()) {
    if (performance.now() - sliceStartedAt > VALIDATION_SLICE_MS) {
      spentMs += performance.now() - sliceStartedAt;
      await yieldToEventLoop();
      sliceStartedAt = performance.now();
    }
    const bodyLoc = ["body", "documents", index];
    const deadline = sliceStartedAt + validationMs - spentMs;
    let validated: ReturnType<typeof validateBody<typeof IngestionDocumentSchema>>;
    try {
      validated = validateBody(IngestionDocumentSchema, document, { locPrefix: bodyLoc, deadline });
    } catch (error) {
      if (error instanceof ValidationTimeoutError) throw validationTooLong({ index, count: documents.length, invalidItems: errors.invalidItems, validationMs });
      throw error;
    }
    if (validated.ok) inputs.push({ index, input: validated.data, bodyLoc });
    else {
      results[index] = { error: { status: 422, detail: validated.body.detail } };
      errors.add(validated.body.detail);
      if (errors.pastOneAnswer()) throw errors.batchError(index, documents.length);
    }
  }

  const prepared = await prepareDocumentWrites({ db, principal, inputs });
  const pending: PendingWrite[] = [];
  prepared.forEach((outcome, position) => {
    const { index } = inputs[position] as (typeof inputs)[number];
    if ("error" in outcome) results[index] = itemError(outcome.error);
    else pending.push({ index, write: outcome.write });
  });

  // A scoped key's refusals would roll back the shared transaction: set them aside first.
  const refused = new Set(await findWritesOutsideScope(db, pending.map((item) => item.write)));
  const allowed = pending.filter((item) => {
    if (!refused.has(item.write.id)) return true;
    results[item.index] = itemError(documentOutsideScope(item.write.id));
    return false;
  });

  // Later items of one id overwrite earlier ones, as the same calls made one after another would.
  // Transactions of at most WRITE_CHUNK_SIZE documents keep each statement (and the row locks it
  // holds) short, well inside the statement timeout even on a loaded machine.
  for (const round of roundsOfUniqueIds(allowed)) {
    for (let start = 0; start < round.length; start += WRITE_CHUNK_SIZE) {
      await writeIndependently({ db, boss, items: round.slice(start, start + WRITE_CHUNK_SIZE), results });
    }
  }

  return { results: results.map((result) => result ?? unreachable()) };
}

/**
 * Writes the items in one transaction; when it fails on an item's account (an AppError: a pair
 * deleted meanwhile, a link made outside the key's scope meanwhile), halves the set and tries again,
 * so every item ends with the outcome it would have alone while a few failures cost a few
 * transactions. A database failure fails the whole call (503), as it would each single call.
 */
async function writeIndependently({
  db,
  boss,
  items,
  results,
}: {
  db: Db;
  boss: PgBoss;
  items: readonly PendingWrite[];
  results: Array<Camel<IngestionBatchItemResult> | undefined>;
}): Promise<void> {
  if (items.length === 0) return;
  try {
    const written = await writeDocuments({ db, boss, documents: items.map((item) => item.write) });
    items.forEach((item, position) => {
      const outcome = written[position];
      if (!outcome) return;
      const result = ingestionResultOf(item.write, outcome);
      results[item.index] = result instanceof AppError ? itemError(result) : result;
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    const [only] = items;
    if (items.length === 1 && only) {
      results[only.index] = itemError(error);
      return;
    }
    const middle = Math.ceil(items.length / 2);
    await writeIndependently({ db, boss, items: items.slice(0, middle), results });
    await writeIndependently({ db, boss, items: items.slice(middle), results });
  }
}

/** Past the validation budget: the whole batch is refused, and the client sends fewer documents. */
function validationTooLong({
  index,
  count,
  invalidItems,
  validationMs,
}: {
  index: number;
  count: number;
  invalidItems: number;
  validationMs: number;
}): AppError {
  const invalid = invalidItems === 0 ? "" : `, ${invalidItems} of them invalid`;
  return new AppError(
    "PAYLOAD_TOO_LARGE",
    `Validating this batch took longer than ${validationMs / 1000} s: stopped at document ${index + 1} of ${count}` +
      `${invalid}. Nothing was stored; send fewer documents per request${invalidItems === 0 ? "" : " and fix the invalid ones"}.`,
  );
}

/**
 * The validation errors of a batch's items, counted as they are found. Together they are held to
 * one 422's bounds (MAX_VALIDATION_ERROR_ITEMS errors, MAX_VALIDATION_ERROR_BODY_BYTES), so a batch
 * of many invalid items cannot answer many times its size; past them, validation stops and the
 * whole batch is one 422 listing the errors found so far.
 */
class ItemErrors {
  invalidItems = 0;
  private readonly listed: ValidationError[] = [];
  private omitted = 0;
  private bytes = 0;

  add(detail: readonly ValidationError[]): void {
    this.invalidItems += 1;
    this.bytes += Buffer.byteLength(JSON.stringify(detail));
    const last = detail.at(-1);
    // An item's own 422 ends with a summary of what it left out when it had more errors than it lists.
    const summary = last?.type === TOO_MANY_ERRORS_TYPE && last.loc.length === 0 ? last : undefined;
    this.listed.push(...(summary ? detail.slice(0, -1) : detail));
    this.omitted += summary ? Number(summary.ctx?.omitted ?? 0) : 0;
  }

  pastOneAnswer(): boolean {
    return this.listed.length > MAX_VALIDATION_ERROR_ITEMS || this.bytes > MAX_VALIDATION_ERROR_BODY_BYTES;
  }

  batchError(index: number, count: number): AppError {
    const unchecked = count - index - 1;
    const summary: ValidationError = {
      type: TOO_MANY_ERRORS_TYPE,
      loc: ["body", "documents"],
      msg:
        `Validation stopped at document ${index + 1} of ${count}: ${this.invalidItems} invalid documents hold more errors than one answer lists ` +
        `(${MAX_VALIDATION_ERROR_ITEMS}, or ${MAX_VALIDATION_ERROR_BODY_BYTES / 1024} kB). Nothing was stored; fix the invalid documents or send fewer per request`,
      input: null,
      ctx: { max_errors: MAX_VALIDATION_ERROR_ITEMS, omitted: this.omitted, invalid_items: this.invalidItems, unchecked_items: unchecked },
    };
    return new AppError("VALIDATION_FAILED", "Invalid request body", boundValidationErrorBody({ detail: [...this.listed, summary] }));
  }
}

/** Splits items so that no id repeats within a round; each round keeps request order. */
function roundsOfUniqueIds(items: readonly PendingWrite[]): PendingWrite[][] {
  const rounds: PendingWrite[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const round = seen.get(item.write.id) ?? 0;
    seen.set(item.write.id, round + 1);
    (rounds[round] ??= []).push(item);
  }
  return rounds;
}

/** An item's result for the error its single call would have answered with. */
function itemError(error: AppError): Camel<IngestionBatchItemResult> {
  const body = error.toResponseBody() as { detail: string | IngestionBatchDetail; current_version?: number | null };
  const status = error.httpStatus;
  // A 409 is an item's own only for its `if_version`; an image file deleted mid-write fails the call, as before.
  const ownConflict = status === 409 && body.current_version !== undefined;
  if (status !== 400 && status !== 403 && !ownConflict && status !== 422) throw error;
  return { error: { status, detail: body.detail, ...(body.current_version === undefined ? {} : { currentVersion: body.current_version }) } };
}

type IngestionBatchDetail = Extract<IngestionBatchItemResult, { error: unknown }>["error"]["detail"];

function unreachable(): never {
  throw new Error("bulk ingestion left an item without a result");
}
