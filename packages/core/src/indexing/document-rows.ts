import { Prisma, executeSql, querySql, type AnyTx, type Db, type SqlClient, type Tx } from "@svc/db";
import type { IndexDocumentPayload } from "../jobs/catalog";

/**
 * The one writer of `document`: ingestion's upsert (which writes the document's sections and its
 * pair link in the same statement, so it is also the writer of `document_section`), the indexing
 * states (`queued` → `indexing` → `indexed` / `failed`), a rebuild's failures, a retry's reset of the
 * tries, and the deletes. Each function writes in its caller's transaction and expects the caller to
 * hold the document row locks it needs (in id order: ingestion, indexing, deletion and the purge lock
 * document rows before pair rows). The hot paths (ingestion, indexing) use named pg statements.
 */

/** A section as stored: its position, its kind, and an image reference only when the file exists. */
export interface ResolvedSection {
  position: number;
  kind: "text" | "image";
  text: string | null;
  link: string | null;
  image_file_id: string | null;
}

/** One document as ingestion writes it: every column of its row, its sections, and the pair to link. */
export interface DocumentRowWrite {
  id: string;
  semantic_identifier: string;
  title: string | null;
  source: string;
  link: string | null;
  metadata: unknown;
  doc_updated_at: string;
  primary_owners: unknown;
  secondary_owners: unknown;
  additional_info: unknown;
  doc_metadata: unknown;
  external_user_emails: string[];
  external_user_group_ids: string[];
  is_public: boolean | null;
  chunk_count: number | null;
  sections: ResolvedSection[];
  cc_pair_id: number;
  /** Write only if the stored version is this one (0: only if there is none); docs/decisions.md "Conditional writes". */
  if_version?: number | null;
  /** Write only if the stored `doc_updated_at` is not newer than this one's. */
  if_newer?: boolean;
}

export interface WrittenDocument {
  id: string;
  version: number;
  inserted: boolean;
}

/** Whether a write carries a condition (then it may be left unwritten). */
export function isConditionalWrite(document: Pick<DocumentRowWrite, "if_version" | "if_newer">): boolean {
  return (document.if_version ?? null) !== null || document.if_newer === true;
}

/**
 * Upserts the documents (a new version, `queued` again, its tries at 0), replaces their sections and
 * links them to their pairs, in one statement. Rows are written in id order, so concurrent batches
 * lock shared rows in the same order and cannot deadlock. `xmax = 0` holds only for a row this
 * statement inserted: of many concurrent first writes of one id, exactly one sees `inserted`. Ids
 * must be unique within a batch. Returns the rows in no particular order.
 */
export async function upsertDocuments(sql: SqlClient, documents: readonly DocumentRowWrite[]): Promise<WrittenDocument[]> {
  // Writes without a condition (the original's clients) keep the plain statement; with one, the
  // upsert skips rows whose condition fails. ON CONFLICT DO UPDATE evaluates its WHERE on the newest
  // committed row, which it holds locked, so of two concurrent conditional writers the later one
  // sees what the first committed: an older write never lands after a newer one.
  const conditional = documents.some(isConditionalWrite);
  const { rows } = await sql.query<WrittenDocument>({
    name: conditional ? "svc-write-documents-conditional" : "svc-write-documents",
    text: conditional ? UPSERT_DOCUMENTS_CONDITIONAL : UPSERT_DOCUMENTS,
    values: [JSON.stringify(documents)],
  });
  return rows;
}

/** The stored versions of the given documents (absent: no such document). */
export async function readStoredVersions(sql: SqlClient, documentIds: string[]): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ id: string; version: number }>({
    name: "svc-read-stored-versions",
    text: `SELECT id, version FROM document WHERE id = ANY($1::text[])`,
    values: [documentIds],
  });
  return new Map(rows.map((row) => [row.id, row.version]));
}

/**
 * Moves the documents of a batch a worker has just taken from `queued` to `indexing`, so that GET
 * /svc-api/ingestion/{id} tells a waiting document from one being worked on. One statement, outside
 * the indexing transactions; the per-document transaction then writes `indexed` or `failed`.
 *
 * Only a document still `queued` at the job's version moves: a newer version (ingestion sets it
 * `queued` again), an indexed or a deleted document is left alone. Left alone too:
 * - a `failed` document being retried: markDocumentFailed counts a version's failure in its pairs'
 *   attempts only while the status is not yet `failed`, so the status must stay `failed` through retries;
 * - a document linked only to paused pairs, which the indexing skips (it stays `queued` until
 *   resumeCcPair sends its job again; a pause that lands in between is caught there too, as resuming
 *   resends `indexing` documents);
 * - a row locked by someone else (ingestion writing a new version, another worker indexing it):
 *   SKIP LOCKED, so this never waits behind a long transaction, and rows are taken in id order, as
 *   ingestion and indexing lock them.
 *
 * The status test compares text on purpose: it keeps the status index out of the plan, which then
 * looks the batch's documents up by id. Statistics taken while everything was indexed estimate almost
 * no `queued` rows, and a plan that scanned them all cost ~20 ms a batch during a bulk load.
 *
 * Returns the ids it moved (their pairs' attempts open then: openTakenAttempts). A worker killed after
 * this leaves `indexing` documents behind; `closeAttemptIfDrained` counts them as pending, and their
 * jobs, still `active`, are retried once their heartbeat lapses (jobs/catalog.ts).
 */
export async function markDocumentsIndexing({ db, jobs }: { db: Db; jobs: IndexDocumentPayload[] }): Promise<string[]> {
  if (jobs.length === 0) return [];
  const taken = await querySql<{ id: string }>(db, {
    name: "mark-documents-indexing",
    text: MARK_DOCUMENTS_INDEXING,
    values: [jobs.map((job) => job.documentId), jobs.map((job) => job.version)],
  });
  return taken.map((row) => row.id);
}

const MARK_DOCUMENTS_INDEXING = `
  UPDATE document d SET indexing_status = 'indexing'
  FROM (
    SELECT c.id FROM document c
    WHERE (c.id, c.version) IN (SELECT * FROM unnest($1::text[], $2::int[]))
      AND c.indexing_status::text = 'queued'
      AND (
        NOT EXISTS (SELECT 1 FROM document_by_cc_pair l WHERE l.document_id = c.id)
        OR EXISTS (
          SELECT 1 FROM document_by_cc_pair l JOIN connector_credential_pair p ON p.id = l.cc_pair_id
          WHERE l.document_id = c.id AND p.status <> 'PAUSED'))
    ORDER BY c.id
    FOR NO KEY UPDATE OF c SKIP LOCKED
  ) taken
  WHERE d.id = taken.id
  RETURNING d.id`;

/** A document an indexing transaction made searchable, and how long after its upsert was accepted. */
export interface IndexedDocument {
  documentId: string;
  version: number;
  /** From the upsert that wrote this version (`updated_at`) to the commit's `indexed_at`. */
  lagSeconds: number;
}

/** The locked documents are `indexed` at the given versions, with their current generation's chunk counts. */
export async function markDocumentsIndexed(
  sql: SqlClient,
  documents: { ids: string[]; versions: number[]; chunkCounts: (number | null)[] },
): Promise<IndexedDocument[]> {
  const { rows } = await sql.query<IndexedDocument>({
    name: "svc-mark-documents-indexed",
    text: MARK_DOCUMENTS_INDEXED,
    values: [documents.ids, documents.versions, documents.chunkCounts],
  });
  return rows;
}

const MARK_DOCUMENTS_INDEXED = `
  UPDATE document d SET indexing_status = 'indexed', indexed_version = v.version, indexed_at = now(),
    chunk_count = v.chunk_count, last_error = NULL
  FROM unnest($1::text[], $2::int[], $3::int[]) AS v(id, version, chunk_count)
  WHERE d.id = v.id
  RETURNING d.id AS "documentId", d.version, extract(epoch FROM d.indexed_at - d.updated_at)::float8 AS "lagSeconds"`;

/** A failed try of the locked document's version: `failed` with the error, one more try. */
export async function markDocumentTryFailed(sql: SqlClient, documentId: string, message: string): Promise<void> {
  await sql.query({
    name: "svc-mark-document-failed",
    text: `UPDATE document SET indexing_status = 'failed', last_error = $2, index_attempts = index_attempts + 1 WHERE id = $1`,
    values: [documentId, message],
  });
}

/**
 * After a rebuild's swap: the generation's recorded failures (`rebuild_failure`) whose documents are
 * still `indexed` and have no chunks in it become `failed` with the pass's error. Returns how many.
 */
export async function markRebuildFailedDocuments(tx: AnyTx, generationId: number): Promise<number> {
  return executeSql(
    tx,
    Prisma.sql`
        UPDATE document d SET indexing_status = 'failed', last_error = f.error
        FROM rebuild_failure f
        WHERE f.generation_id = ${generationId} AND d.id = f.document_id AND d.indexing_status = 'indexed'
          AND NOT EXISTS (SELECT 1 FROM document_chunk c WHERE c.document_id = d.id AND c.generation_id = ${generationId})`,
  );
}

/** A console retry: the locked documents' tries start again from 0. */
export async function resetDocumentTries(tx: Tx, documentIds: string[]): Promise<void> {
  await tx.document.updateMany({ where: { id: { in: documentIds } }, data: { indexAttempts: 0 } });
}

/** Deletes the locked document; its sections and chunks go with the row (ON DELETE CASCADE). */
export async function deleteDocumentRow(tx: Tx, documentId: string): Promise<void> {
  await tx.$executeRaw`DELETE FROM document WHERE id = ${documentId}`;
}

/**
 * Deletes those of the locked documents that no pair links any more (a purge has removed their last
 * link); returns their ids. Run it as a new statement after the links are removed, so it sees every
 * link committed before the locks were granted.
 */
export async function deleteUnlinkedDocuments(tx: Tx, documentIds: string[]): Promise<string[]> {
  const deleted = await tx.$queryRaw<{ id: string }[]>`
    DELETE FROM document d
    WHERE d.id = ANY(${documentIds}::text[])
      AND NOT EXISTS (SELECT 1 FROM document_by_cc_pair l WHERE l.document_id = d.id)
    RETURNING d.id`;
  return deleted.map((row) => row.id);
}

/**
 * The upsert, with or without write conditions: `insertFilter` keeps out of the INSERT the rows that
 * may only update (an `if_version` above 0) and have nothing to update, `updateCondition` leaves a
 * conflicting row as it is.
 */
const upsertDocumentsStatement = ({ insertFilter, updateCondition }: { insertFilter: string; updateCondition: string }) => `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(
    id text, semantic_identifier text, title text, source text, link text, metadata jsonb,
    doc_updated_at timestamptz, primary_owners jsonb, secondary_owners jsonb, additional_info jsonb,
    doc_metadata jsonb, external_user_emails text[], external_user_group_ids text[], is_public boolean,
    chunk_count int, sections jsonb, cc_pair_id int, if_version int, if_newer boolean)
), doc AS (
  INSERT INTO document AS d (
    id, semantic_identifier, title, source, link, metadata, doc_updated_at, primary_owners,
    secondary_owners, from_ingestion_api, additional_info, doc_metadata, external_user_emails,
    external_user_group_ids, is_public, chunk_count)
  SELECT id, semantic_identifier, title, source::"DocumentSource", link, metadata, doc_updated_at,
    primary_owners, secondary_owners, true, additional_info, doc_metadata, external_user_emails,
    external_user_group_ids, is_public, chunk_count
  FROM input ${insertFilter} ORDER BY id
  ON CONFLICT (id) DO UPDATE SET
    semantic_identifier = EXCLUDED.semantic_identifier, title = EXCLUDED.title,
    source = EXCLUDED.source, link = EXCLUDED.link, metadata = EXCLUDED.metadata,
    doc_updated_at = EXCLUDED.doc_updated_at, primary_owners = EXCLUDED.primary_owners,
    secondary_owners = EXCLUDED.secondary_owners, from_ingestion_api = true,
    additional_info = EXCLUDED.additional_info, doc_metadata = EXCLUDED.doc_metadata,
    external_user_emails = EXCLUDED.external_user_emails,
    external_user_group_ids = EXCLUDED.external_user_group_ids, is_public = EXCLUDED.is_public,
    version = d.version + 1, indexing_status = 'queued',
    index_attempts = 0, last_error = NULL, updated_at = now()
  ${updateCondition}
  RETURNING d.id, d.version, (d.xmax = 0) AS inserted
), upserted_sections AS (
  -- Reads doc, so it runs after the document rows are locked.
  INSERT INTO document_section (document_id, position, kind, text, link, image_file_id)
  SELECT doc.id, s.position, s.kind::"SectionKind", s.text, s.link, s.image_file_id
  FROM doc JOIN input USING (id),
    jsonb_to_recordset(input.sections) AS s(position int, kind text, text text, link text, image_file_id text)
  ON CONFLICT (document_id, position) DO UPDATE SET
    kind = EXCLUDED.kind, text = EXCLUDED.text, link = EXCLUDED.link, image_file_id = EXCLUDED.image_file_id
), surplus_sections AS (
  -- "= ANY (ARRAY(…))" makes this an index scan on the section key (a join would scan the table).
  DELETE FROM document_section s USING input
  WHERE s.document_id = ANY (ARRAY(SELECT id FROM doc))
    AND s.document_id = input.id AND s.position >= jsonb_array_length(input.sections)
), link AS (
  INSERT INTO document_by_cc_pair (document_id, cc_pair_id)
  SELECT doc.id, input.cc_pair_id FROM doc JOIN input USING (id)
  ON CONFLICT DO NOTHING
)
SELECT id, version, inserted FROM doc`;

const UPSERT_DOCUMENTS = upsertDocumentsStatement({ insertFilter: "", updateCondition: "" });

const UPSERT_DOCUMENTS_CONDITIONAL = upsertDocumentsStatement({
  // A write at a version above 0 may only update: it tries the insert only for a row that exists (it
  // then conflicts and the condition decides); writeDocuments refuses one that inserted all the same
  // (the row was deleted in between).
  insertFilter: "WHERE coalesce(if_version, 0) = 0 OR EXISTS (SELECT 1 FROM document x WHERE x.id = input.id)",
  updateCondition: `WHERE (SELECT (c.if_version IS NULL OR c.if_version = d.version)
      AND NOT (coalesce(c.if_newer, false) AND d.doc_updated_at > EXCLUDED.doc_updated_at)
    FROM input c WHERE c.id = d.id)`,
});
