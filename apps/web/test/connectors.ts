// Test-only seeding for the connector tests: pairs come from createTestPair (@svc/core/testing); index attempts are
// inserted directly, so that a test can craft any history (indexing writes real ones: see
// forgetIndexingHistory).
import { DEFAULT_CC_PAIR_ID } from "@svc/core";
import { indexTestDocuments } from "@svc/core/testing";
import type { ConnectorCredentialPairStatus, Db, IndexingStatus } from "@svc/db";

/** Puts a pair in a status the service reaches through indexing (ACTIVE, INITIAL_INDEXING, …). */
export async function setPairStatus(db: Db, ccPairId: number, status: ConnectorCredentialPairStatus): Promise<void> {
  await db.connectorCredentialPair.update({ where: { id: ccPairId }, data: { status } });
}

export interface SeedAttempt {
  status: IndexingStatus;
  docsIndexed?: number;
  finishedAt?: Date | null;
}

/** Inserts index attempts for a pair, oldest first (ids grow in the order given). */
export async function insertIndexAttempts(db: Db, ccPairId: number, attempts: SeedAttempt[]): Promise<number[]> {
  const ids: number[] = [];
  for (const attempt of attempts) {
    const finished = attempt.status !== "in_progress" && attempt.status !== "not_started";
    const row = await db.indexAttempt.create({
      data: {
        ccPairId,
        status: attempt.status,
        docsIndexed: attempt.docsIndexed ?? 0,
        startedAt: attempt.status === "not_started" ? null : new Date(),
        finishedAt: attempt.finishedAt !== undefined ? attempt.finishedAt : finished ? new Date() : null,
      },
      select: { id: true },
    });
    ids.push(row.id);
  }
  // As indexing does (syncLastAttemptStatus): the pair keeps its latest attempt's status.
  await db.$executeRaw`
    UPDATE connector_credential_pair SET last_attempt_status = (
      SELECT ia.status FROM index_attempt ia WHERE ia.cc_pair_id = ${ccPairId} ORDER BY ia.id DESC LIMIT 1
    )
    WHERE id = ${ccPairId}`;
  return ids;
}

/**
 * Removes the attempts indexing wrote and puts every pair (but the default one) back in SCHEDULED, for tests whose
 * attempts and statuses are crafted by hand.
 */
export async function forgetIndexingHistory(db: Db): Promise<void> {
  await db.$transaction([
    db.$executeRaw`DELETE FROM index_attempt`,
    db.$executeRaw`UPDATE connector_credential_pair SET status = 'SCHEDULED', last_attempt_status = NULL WHERE id <> ${DEFAULT_CC_PAIR_ID}`,
  ]);
}

/** Runs the indexing of every document that is waiting, as the worker would. */
export async function indexQueuedDocuments(db: Db): Promise<void> {
  const queued = await db.document.findMany({ where: { indexingStatus: "queued" }, select: { id: true } });
  await indexTestDocuments(db, queued.map((document) => document.id));
}

/** Removes every pair but the default one, every document and every federated connector. */
export async function clearConnectors(db: Db): Promise<void> {
  await db.$transaction([
    db.$executeRaw`DELETE FROM document`,
    db.$executeRaw`DELETE FROM federated_connector`,
    db.$executeRaw`DELETE FROM index_attempt`,
    db.$executeRaw`DELETE FROM api_key_scope`,
    db.$executeRaw`DELETE FROM connector_credential_pair WHERE id <> 1`,
    db.$executeRaw`DELETE FROM connector WHERE id <> 1`,
    db.$executeRaw`DELETE FROM credential WHERE id <> 1`,
    db.$executeRaw`UPDATE connector_credential_pair SET docs_indexed = 0, last_attempt_status = NULL`,
  ]);
}
