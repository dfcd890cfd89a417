import {
  Prisma,
  executeSql,
  type AccessType,
  type AnyTx,
  type ConnectorCredentialPairStatus,
  type DbOrTx,
  type DocumentSource,
  type SqlClient,
  type Tx,
} from "@svc/db";
import type { Camel, CreatedCcPair } from "@svc/schema";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import { servingAttemptSql } from "../search-index/index-generations";

/**
 * The one writer of `connector_credential_pair` and of the `connector` and `credential` it joins
 * (created with it, deleted with it), and of the links' indexed state (`document_by_cc_pair`: every
 * write but ingestion's insert of a new link, which document-rows.ts makes in its upsert). The pair:
 * its creation, name and deletion, its status through named transitions (each a no-op from any other
 * status, so calling one twice is safe), and its `docs_indexed` count, kept exact by the statements
 * that change which links are indexed. Callers hold the locks their transaction needs (the pair row:
 * lockEditableCcPair, lockDocumentPairs; the documents of the links they remove), and
 * `last_attempt_status` is a copy of the pair's latest attempt (index-attempts.ts) taken after it changes.
 */

/** The ids of a new pair and its connector and credential: the wire's CreatedCcPair, in core's camelCase. */
export type NewCcPairIds = Camel<CreatedCcPair>;

/** A new connector, credential and the pair joining them; the pair starts as SCHEDULED. */
export async function insertCcPair(
  tx: Tx,
  { name, source, accessType }: { name: string; source: DocumentSource; accessType: AccessType },
): Promise<NewCcPairIds> {
  const connector = await tx.connector.create({ data: { name, source }, select: { id: true } });
  const credential = await tx.credential.create({ data: { name, source }, select: { id: true } });
  const pair = await tx.connectorCredentialPair.create({
    data: { name, connectorId: connector.id, credentialId: credential.id, accessType, status: "SCHEDULED" },
    select: { id: true },
  });
  return { ccPairId: pair.id, connectorId: connector.id, credentialId: credential.id };
}

export async function renameCcPair(tx: Tx, ccPairId: number, name: string): Promise<void> {
  await tx.connectorCredentialPair.update({ where: { id: ccPairId }, data: { name } });
}

/** The statuses a pair can be paused from: anything but DELETING (final) and PAUSED (already). */
const PAUSABLE: ConnectorCredentialPairStatus[] = ["SCHEDULED", "INITIAL_INDEXING", "ACTIVE", "INVALID"];

/**
 * Transition to PAUSED: the pair still accepts documents, their indexing waits until it is resumed.
 * Returns whether the status changed (pausing a paused pair is a no-op).
 */
export async function markPairPaused(db: DbOrTx, ccPairId: number): Promise<boolean> {
  const { count } = await db.connectorCredentialPair.updateMany({
    where: { id: ccPairId, status: { in: PAUSABLE } },
    data: { status: "PAUSED" },
  });
  return count > 0;
}

/** PAUSED → ACTIVE. Returns whether the status changed. */
export async function markPairResumed(tx: Tx, ccPairId: number): Promise<boolean> {
  const [resumed] = await tx.$queryRaw<{ id: number }[]>`
    UPDATE connector_credential_pair SET status = 'ACTIVE', updated_at = now()
    WHERE id = ${ccPairId} AND status = 'PAUSED' RETURNING id`;
  return resumed !== undefined;
}

/** Any status → DELETING (final): the pair takes no new documents and leaves the status listing. */
export async function markPairDeleting(tx: Tx, ccPairId: number): Promise<void> {
  await tx.connectorCredentialPair.update({ where: { id: ccPairId }, data: { status: "DELETING" } });
}

/** SCHEDULED → INITIAL_INDEXING: the pair's first attempt has started. */
export async function markPairIndexingStarted(tx: AnyTx, ccPairId: number): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      UPDATE connector_credential_pair SET status = 'INITIAL_INDEXING', updated_at = now()
      WHERE id = ${ccPairId} AND status = 'SCHEDULED'`,
  );
}

/** SCHEDULED / INITIAL_INDEXING → ACTIVE: an attempt of the pair has indexed a document. */
export async function markPairActive(tx: AnyTx, ccPairId: number): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      UPDATE connector_credential_pair SET status = 'ACTIVE', updated_at = now()
      WHERE id = ${ccPairId} AND status IN ('SCHEDULED', 'INITIAL_INDEXING')`,
  );
}

/**
 * Copies the status of the pair's latest attempt (highest id among the attempts that count; NULL when
 * it has none) to the pair's `last_attempt_status`, which `last_status_filters` reads. Called in the
 * transaction that opens an attempt or changes an attempt's status, and by the swap of a rebuild (for
 * every pair whose rebuild attempt now counts).
 */
export async function syncLastAttemptStatus(tx: AnyTx, ccPairIds: number | number[]): Promise<void> {
  const ids = typeof ccPairIds === "number" ? [ccPairIds] : ccPairIds;
  // Only rows whose value changes are written: a swap recomputes thousands of pairs, most unchanged.
  await executeSql(
    tx,
    Prisma.sql`
      WITH latest AS (
        SELECT q.id, (
          SELECT ia.status FROM index_attempt ia WHERE ia.cc_pair_id = q.id AND ${servingAttemptSql("ia")} ORDER BY ia.id DESC LIMIT 1
        ) AS status
        FROM unnest(${ids}::int[]) AS q(id)
      )
      UPDATE connector_credential_pair p SET last_attempt_status = latest.status
      FROM latest WHERE p.id = latest.id AND p.last_attempt_status IS DISTINCT FROM latest.status`,
  );
}

/**
 * Marks the documents' links indexed, and the links indexed for the first time now count in their
 * pair's `docs_indexed` (indexing's hot path: a named statement).
 */
export async function countLinksIndexed(sql: SqlClient, documentIds: string[]): Promise<void> {
  await sql.query({ name: "svc-count-links-indexed", text: COUNT_LINKS_INDEXED, values: [documentIds] });
}

const COUNT_LINKS_INDEXED = `
  WITH newly_indexed AS (
    UPDATE document_by_cc_pair SET has_been_indexed = true
    WHERE document_id = ANY($1::text[]) AND NOT has_been_indexed
    RETURNING cc_pair_id
  )
  UPDATE connector_credential_pair p SET docs_indexed = p.docs_indexed + n.links
  FROM (SELECT cc_pair_id, count(*)::int AS links FROM newly_indexed GROUP BY cc_pair_id) n
  WHERE p.id = n.cc_pair_id`;

/** Removes the document's links; each pair whose link was indexed counts one document less. */
export async function unlinkDocumentFromPairs(tx: Tx, documentId: string): Promise<void> {
  await tx.$executeRaw`
      WITH removed AS (
        DELETE FROM document_by_cc_pair WHERE document_id = ${documentId} RETURNING cc_pair_id, has_been_indexed
      )
      UPDATE connector_credential_pair p SET docs_indexed = p.docs_indexed - 1
      FROM removed r WHERE p.id = r.cc_pair_id AND r.has_been_indexed`;
}

/**
 * A purge's batch: removes the pair's links to the locked documents, and the pair counts the indexed
 * ones less. Returns how many links went.
 */
export async function unlinkPairDocuments(tx: Tx, ccPairId: number, documentIds: string[]): Promise<number> {
  const removed = await tx.$queryRaw<{ has_been_indexed: boolean }[]>`
    DELETE FROM document_by_cc_pair WHERE cc_pair_id = ${ccPairId} AND document_id = ANY(${documentIds}::text[])
    RETURNING has_been_indexed`;
  const indexedRemoved = removed.filter((link) => link.has_been_indexed).length;
  if (indexedRemoved > 0) {
    await tx.$executeRaw`
      UPDATE connector_credential_pair SET docs_indexed = docs_indexed - ${indexedRemoved} WHERE id = ${ccPairId}`;
  }
  return removed.length;
}

/**
 * The purge's last step: the pair row (its links, attempts and key scopes are gone by then), then its
 * connector and credential unless another pair uses them (or they are the default pair's).
 */
export async function deleteCcPairRows(tx: Tx, ccPairId: number): Promise<void> {
  const [pair] = await tx.$queryRaw<{ connector_id: number; credential_id: number }[]>`
    DELETE FROM connector_credential_pair WHERE id = ${ccPairId} RETURNING connector_id, credential_id`;
  if (!pair) return;
  await tx.$executeRaw`
    DELETE FROM connector c WHERE c.id = ${pair.connector_id} AND c.id <> ${DEFAULT_CC_PAIR_ID}
      AND NOT EXISTS (SELECT 1 FROM connector_credential_pair p WHERE p.connector_id = c.id)`;
  await tx.$executeRaw`
    DELETE FROM credential c WHERE c.id = ${pair.credential_id} AND c.id <> ${DEFAULT_CC_PAIR_ID}
      AND NOT EXISTS (SELECT 1 FROM connector_credential_pair p WHERE p.credential_id = c.id)`;
}
