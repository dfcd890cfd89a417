import { queryStatement, withSqlTransaction, type Db, type SqlClient } from "@svc/db";
import { CC_PAIR_NOT_FOUND, DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import { AppError } from "../errors/app-error";
import { indexDocumentJob } from "../jobs/catalog";
import { preparedStatementsOn, type PgBoss } from "../jobs/job-queue";
import type { ResolvedSection } from "./resolve-sections";

/** One document as it is written: every column of its row, its sections, and the pair to link. */
export interface DocumentWrite {
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
  /** The pairs the writing key may change (access-policy's editablePairIds); null for an unscoped key (decisions: "Scoped keys"). */
  write_scope: readonly number[] | null;
}

export interface WrittenDocument {
  id: string;
  version: number;
  inserted: boolean;
}

/**
 * Upserts documents and enqueues one indexing job each, in one transaction. Rows are written in id
 * order, so concurrent batches lock shared rows in the same order and cannot deadlock. `xmax = 0`
 * holds only for a row this statement inserted: of many concurrent first writes of one id, exactly
 * one sees `inserted`. Ids must be unique within a batch.
 */
export async function writeDocuments({
  db,
  boss,
  documents,
}: {
  db: Db;
  boss: PgBoss;
  documents: DocumentWrite[];
}): Promise<WrittenDocument[]> {
  return withSqlTransaction(db, async (sql) => {
    await lockTargetPairs(sql, documents);
    const { rows } = await sql.query<WrittenDocument>({
      name: "svc-write-documents",
      text: UPSERT_DOCUMENTS,
      values: [JSON.stringify(documents)],
    });
    await refuseWritesOutsideScope(sql, documents);
    const jobs = rows.map((row) => ({ data: indexDocumentJob.payload.parse({ documentId: row.id, version: row.version }) }));
    await boss.insert(indexDocumentJob.name, jobs, {
      db: preparedStatementsOn(sql),
      returnId: false,
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return documents.map((document) => {
      const row = byId.get(document.id);
      if (!row) throw new Error(`document ${document.id} was not written`);
      return row;
    });
  });
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

const UPSERT_DOCUMENTS = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(
    id text, semantic_identifier text, title text, source text, link text, metadata jsonb,
    doc_updated_at timestamptz, primary_owners jsonb, secondary_owners jsonb, additional_info jsonb,
    doc_metadata jsonb, external_user_emails text[], external_user_group_ids text[], is_public boolean,
    chunk_count int, sections jsonb, cc_pair_id int)
), doc AS (
  INSERT INTO document AS d (
    id, semantic_identifier, title, source, link, metadata, doc_updated_at, primary_owners,
    secondary_owners, from_ingestion_api, additional_info, doc_metadata, external_user_emails,
    external_user_group_ids, is_public, chunk_count)
  SELECT id, semantic_identifier, title, source::"DocumentSource", link, metadata, doc_updated_at,
    primary_owners, secondary_owners, true, additional_info, doc_metadata, external_user_emails,
    external_user_group_ids, is_public, chunk_count
  FROM input ORDER BY id
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
