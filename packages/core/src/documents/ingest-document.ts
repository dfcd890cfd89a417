import type { Db } from "@svc/db";
import type { IngestionDocument, IngestionResult } from "@svc/schema";
import { canEditPair, type Principal } from "../auth/principal";
import { DEFAULT_CC_PAIR_ID } from "../connectors/default-pair";
import { AppError } from "../errors/app-error";
import { indexDocumentJob } from "../jobs/catalog";
import { sendJob, type PgBoss } from "../jobs/job-queue";
import { inferDocumentId } from "./infer-document-id";
import { resolveSections } from "./resolve-sections";

interface UpsertedDocumentRow {
  id: string;
  version: number;
  inserted: boolean;
}

/**
 * Creates or replaces one document and enqueues its indexing, in one transaction: when this
 * returns, both the document and its job are durable; when it throws, neither is.
 */
export async function ingestDocument({
  db,
  boss,
  principal,
  input,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  input: IngestionDocument;
}): Promise<IngestionResult> {
  const { document } = input;
  const ccPairId = await resolveTargetPair({ db, principal, ccPairId: input.cc_pair_id });
  const sections = await resolveSections({ db, sections: document.sections });
  const documentId = document.id ? document.id : inferDocumentId(document.semantic_identifier);
  const externalAccess = document.external_access ?? null;

  const upserted = await db.$transaction(async (tx) => {
    // One statement: the document row (locked first, so concurrent upserts of one id queue up
    // behind it), its sections replaced position by position, surplus sections dropped, and the
    // link to the pair. `xmax = 0` holds only for a row this statement inserted.
    const [row] = await tx.$queryRawUnsafe<UpsertedDocumentRow[]>(
      `WITH doc AS (
         INSERT INTO document AS d (
           id, semantic_identifier, title, source, link, metadata, doc_updated_at, primary_owners,
           secondary_owners, from_ingestion_api, additional_info, doc_metadata, external_user_emails,
           external_user_group_ids, is_public, chunk_count)
         VALUES ($1, $2, $3, $4::"DocumentSource", $5, $6::jsonb, $7::timestamptz, $8::jsonb, $9::jsonb,
           true, $10::jsonb, $11::jsonb, ARRAY(SELECT jsonb_array_elements_text($12::jsonb)),
           ARRAY(SELECT jsonb_array_elements_text($13::jsonb)), $14::boolean, $15::int)
         ON CONFLICT (id) DO UPDATE SET
           semantic_identifier = EXCLUDED.semantic_identifier, title = EXCLUDED.title,
           source = EXCLUDED.source, link = EXCLUDED.link, metadata = EXCLUDED.metadata,
           doc_updated_at = EXCLUDED.doc_updated_at, primary_owners = EXCLUDED.primary_owners,
           secondary_owners = EXCLUDED.secondary_owners, from_ingestion_api = true,
           additional_info = EXCLUDED.additional_info, doc_metadata = EXCLUDED.doc_metadata,
           external_user_emails = EXCLUDED.external_user_emails,
           external_user_group_ids = EXCLUDED.external_user_group_ids, is_public = EXCLUDED.is_public,
           version = d.version + 1, indexing_status = 'queued', index_attempts = 0, last_error = NULL,
           updated_at = now()
         RETURNING d.id, d.version, (d.xmax = 0) AS inserted
       ), upserted_sections AS (
         INSERT INTO document_section (document_id, position, kind, text, link, image_file_id)
         SELECT doc.id, s.position, s.kind::"SectionKind", s.text, s.link, s.image_file_id
         FROM doc, jsonb_to_recordset($16::jsonb)
           AS s(position int, kind text, text text, link text, image_file_id text)
         ON CONFLICT (document_id, position) DO UPDATE SET
           kind = EXCLUDED.kind, text = EXCLUDED.text, link = EXCLUDED.link,
           image_file_id = EXCLUDED.image_file_id
       ), surplus_sections AS (
         DELETE FROM document_section s USING doc WHERE s.document_id = doc.id AND s.position >= $17
       ), link AS (
         INSERT INTO document_by_cc_pair (document_id, cc_pair_id)
         SELECT doc.id, $18 FROM doc
         ON CONFLICT DO NOTHING
       )
       SELECT id, version, inserted FROM doc`,
      documentId,
      document.semantic_identifier,
      document.title ?? null,
      document.source ?? "ingestion_api",
      sections.find((section) => section.link)?.link ?? null,
      JSON.stringify(document.metadata),
      (document.doc_updated_at ?? new Date()).toISOString(),
      jsonOrNull(document.primary_owners),
      jsonOrNull(document.secondary_owners),
      jsonOrNull(document.additional_info),
      jsonOrNull(document.doc_metadata),
      JSON.stringify(externalAccess?.external_user_emails ?? []),
      JSON.stringify(externalAccess?.external_user_group_ids ?? []),
      externalAccess?.is_public ?? null,
      document.chunk_count ?? null,
      JSON.stringify(sections),
      sections.length,
      ccPairId,
    );
    if (!row) throw new Error("document upsert returned no row");
    await sendJob(boss, indexDocumentJob, { documentId: row.id, version: row.version }, { tx });
    return row;
  });

  return { document_id: upserted.id, already_existed: !upserted.inserted };
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Which pair the document attaches to: the default pair unless the request names one. */
async function resolveTargetPair({
  db,
  principal,
  ccPairId,
}: {
  db: Db;
  principal: Principal;
  ccPairId: number | null | undefined;
}): Promise<number> {
  const targetId = ccPairId ? ccPairId : DEFAULT_CC_PAIR_ID;
  if (targetId !== DEFAULT_CC_PAIR_ID) {
    const pair = await db.connectorCredentialPair.findUnique({ where: { id: targetId }, select: { status: true } });
    if (!pair || pair.status === "DELETING") {
      throw new AppError("BAD_REQUEST", "Connector-Credential Pair specified does not exist");
    }
  }
  if (!canEditPair(principal, targetId)) {
    throw new AppError("FORBIDDEN", `This API key may not ingest into connector-credential pair ${targetId}.`);
  }
  return targetId;
}
