import { queryStatement, withSqlTransaction, type Db, type SqlClient } from "@svc/db";
import { CC_PAIR_NOT_FOUND, DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import { AppError } from "../errors/app-error";
import { indexDocumentJob } from "../jobs/catalog";
import { preparedStatementsOn, type PgBoss } from "../jobs/job-queue";
import type { Camel, IngestionResult } from "@svc/schema";
import {
  isConditionalWrite,
  readStoredVersions,
  upsertDocuments,
  type DocumentRowWrite,
  type WrittenDocument,
} from "../indexing/document-rows";

/** One document as it is written: every column of its row, its sections, the pair to link, and its writer's scope. */
export interface DocumentWrite extends DocumentRowWrite {
  /** The pairs the writing key may change (access-policy's editablePairIds); null for an unscoped key (decisions: "Scoped keys"). */
  write_scope: readonly number[] | null;
}

/**
 * What became of one write: stored (a new version), or left out because its condition failed
 * (`ifVersionFailed`: its `if_version` no longer held; otherwise `if_newer` found a newer document).
 */
export type DocumentWriteOutcome =
  | (WrittenDocument & { applied: true })
  | { id: string; applied: false; ifVersionFailed: boolean; currentVersion: number | null };

/**
 * Upserts documents (upsertDocuments) and enqueues one indexing job for each one stored, in one
 * transaction, once the target pairs are held and the writer's scope is checked. Ids must be unique
 * within a batch. A write whose condition fails changes nothing and sends no job.
 */
export async function writeDocuments({
  db,
  boss,
  documents,
}: {
  db: Db;
  boss: PgBoss;
  documents: DocumentWrite[];
}): Promise<DocumentWriteOutcome[]> {
  return withSqlTransaction(db, async (sql) => {
    await lockTargetPairs(sql, documents);
    const rows = await upsertDocuments(sql, documents).catch(refuseDeletedImageFiles);
    await refuseWritesOutsideScope(sql, documents);
    refuseInsertsAtVersion(documents, rows);
    if (rows.length > 0) {
      const jobs = rows.map((row) => ({ data: indexDocumentJob.payload.parse({ documentId: row.id, version: row.version }) }));
      await boss.insert(indexDocumentJob.name, jobs, {
        db: preparedStatementsOn(sql),
        returnId: false,
      });
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    const unwritten = documents.filter((document) => !byId.has(document.id));
    // Read after the upsert, which holds every conflicting row locked: the version that beat the condition.
    const stored = unwritten.length > 0 ? await readStoredVersions(sql, unwritten.map((document) => document.id)) : new Map<string, number>();
    return documents.map((document): DocumentWriteOutcome => {
      const row = byId.get(document.id);
      if (row) return { ...row, applied: true };
      if (!isConditionalWrite(document)) throw new Error(`document ${document.id} was not written`);
      const currentVersion = stored.get(document.id) ?? null;
      const ifVersion = document.if_version ?? null;
      // At the version asked for, only `if_newer` can have left the write out.
      const ifVersionFailed = ifVersion !== null && !(ifVersion === currentVersion && document.if_newer === true);
      return { id: document.id, applied: false, ifVersionFailed, currentVersion };
    });
  });
}

/**
 * A write at a version above 0 updates an existing document only; the upsert tries it only for a row
 * it saw, and one deleted in between is inserted instead. That write fails as a conflict (and the
 * transaction rolls back; the batcher and the bulk call retry the others without it).
 */
function refuseInsertsAtVersion(documents: readonly DocumentWrite[], rows: readonly WrittenDocument[]): void {
  const inserted = new Set(rows.filter((row) => row.inserted).map((row) => row.id));
  const refused = documents.find((document) => (document.if_version ?? 0) > 0 && inserted.has(document.id));
  if (refused) throw versionConflict(refused.id, refused.if_version ?? 0, null);
}

/**
 * The ingestion answer for one write's outcome, or the 409 of a failed `if_version`. Without a
 * condition it is exactly the original's `{document_id, already_existed}`; with one, it says `applied`.
 */
export function ingestionResultOf(write: DocumentWrite, outcome: DocumentWriteOutcome): Camel<IngestionResult> | AppError {
  if (!outcome.applied) {
    if (outcome.ifVersionFailed) return versionConflict(outcome.id, write.if_version ?? 0, outcome.currentVersion);
    return { documentId: outcome.id, alreadyExisted: true, applied: false };
  }
  const result = { documentId: outcome.id, alreadyExisted: !outcome.inserted };
  return isConditionalWrite(write) ? { ...result, applied: true } : result;
}

function versionConflict(documentId: string, expected: number, currentVersion: number | null): AppError {
  const detail =
    currentVersion === null
      ? `Document ${documentId} does not exist, so it is not at version ${expected}.`
      : `Document ${documentId} is at version ${currentVersion}, not ${expected}.`;
  return new AppError("CONFLICT", detail, { detail, current_version: currentVersion });
}

/**
 * Holds the named pairs (other than the default pair, which is never deleted) against deletion until
 * commit, and refuses the write if one is gone or being deleted: its check before the transaction
 * may be stale.
 */
async function lockTargetPairs(sql: SqlClient, documents: DocumentWrite[]): Promise<void> {
  const pairIds = [...new Set(documents.map((document) => document.cc_pair_id))].filter((id) => id !== DEFAULT_CC_PAIR_ID);
  if (pairIds.length === 0) return;
  const { rowCount } = await sql.query({
    name: "svc-lock-target-pairs",
    text: `SELECT 1 FROM connector_credential_pair WHERE id = ANY($1::int[]) AND status <> 'DELETING' FOR KEY SHARE`,
    values: [pairIds],
  });
  if (rowCount !== pairIds.length) throw new AppError("BAD_REQUEST", CC_PAIR_NOT_FOUND);
}

/**
 * An image file that existed when the request was checked may be deleted before the write commits:
 * the sections' foreign key refuses the write, and the caller is told to send it again (then its
 * check answers the 422 of an unknown file id) rather than a 500.
 */
function refuseDeletedImageFiles(error: unknown): never {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code === "23503" && constraint === "document_section_image_file_id_fkey") {
    throw new AppError("CONFLICT", "An image file the document names was deleted while it was being written; send the document again.");
  }
  throw error;
}

/**
 * A scoped key may not change a document that is linked to a pair outside its scope. Checked after
 * the upsert, in the same transaction: the upsert holds every written document row locked, and every
 * writer of links locks the document row first, so this statement (a fresh snapshot under READ
 * COMMITTED) sees every link the document can have at commit. A refusal rolls the whole transaction
 * back: nothing of the document, its sections, links or job remains (the batcher then retries the
 * other writes of the batch alone).
 */
async function refuseWritesOutsideScope(sql: SqlClient, documents: DocumentWrite[]): Promise<void> {
  const [refused] = await findWritesOutsideScope(sql, documents);
  if (refused !== undefined) throw documentOutsideScope(refused);
}

/**
 * The ids, in order, of the documents that their writer's scope forbids (linked to a pair outside
 * it). Outside a transaction this is a forecast (a bulk call sets those items aside before writing,
 * instead of failing its transaction on them); inside one, after the upsert, it is the rule.
 */
export async function findWritesOutsideScope(
  on: Db | SqlClient,
  documents: readonly Pick<DocumentWrite, "id" | "write_scope">[],
): Promise<string[]> {
  const scoped = documents.filter((document) => document.write_scope !== null);
  if (scoped.length === 0) return [];
  const rows = await queryStatement<{ id: string }>(on, {
    name: "svc-writes-outside-scope",
    text: `SELECT i.id FROM jsonb_to_recordset($1::jsonb) AS i(id text, write_scope int[])
      WHERE EXISTS (SELECT 1 FROM document_by_cc_pair l
        WHERE l.document_id = i.id AND NOT (l.cc_pair_id = ANY(i.write_scope)))
      ORDER BY i.id`,
    values: [JSON.stringify(scoped.map((document) => ({ id: document.id, write_scope: document.write_scope })))],
  });
  return rows.map((row) => row.id);
}

/** The answer to a scoped key writing a document id that another pair holds (decisions.md). */
export function documentOutsideScope(documentId: string): AppError {
  return new AppError("FORBIDDEN", `This key cannot write document ${documentId}: it belongs to a connector outside the key's scope`);
}
