import { Prisma, type ConnectorCredentialPairStatus, executeSql, querySql, selectSql, sqlAlias, withSqlTransaction, type AnyTx, type Db } from "@svc/db";
import { servingAttemptSql } from "../search-index/index-generations";
import { recordAttemptsFinishedEvents, type FinishedAttempt } from "../events/event-rows";
import { markPairActive, markPairIndexingStarted, syncLastAttemptStatus } from "./cc-pair-rows";

/**
 * Index attempts of ingested documents (docs/decisions.md, "Index attempts for ingested documents"): a pair
 * has at most one open (`in_progress`) attempt, and it is open only while documents of the pair the
 * worker has taken up are left to index. It opens when the worker takes up a document of the pair
 * (openTakenAttempts) or indexes or fails one (openAttempt) and none is open, counts each (stamping
 * `last_activity_at`), and closes in the transaction that leaves none of the pair's documents
 * `queued`/`indexing`, at its last activity. So that a steady stream of pushed documents, which drains
 * the queue between pushes, stays one attempt rather than one per push, the pair's next document within
 * the quiet period reopens the closed attempt (its counts carry on, and it closes again at the next
 * drain) instead of opening a new one; with a quiet period of 0 every drain ends the attempt for good.
 *
 * Every function here expects the pair rows locked by lockDocumentPairs in the same transaction (or
 * takes them itself): the lock makes "find the open attempt, else reopen or open one" and "nothing
 * pending, so close" atomic across workers, without a unique index.
 *
 * This module is the one writer of `index_attempt`. The attempts of indexing jobs belong to the
 * current index generation. A rebuild's attempts (counted here for indexing/run-index-rebuild.ts:
 * countInGenerationAttempts, closeGenerationAttempts, endGenerationAttempts)
 * belong to the generation being built and are left out here (servingAttemptSql) until the swap or the
 * cancel makes them count; so a pair has at most one open attempt of each kind.
 */

export interface LockedPair {
  id: number;
  status: ConnectorCredentialPairStatus;
}

/**
 * Locks the pairs the documents are linked to, in id order so that concurrent workers cannot deadlock.
 * `FOR NO KEY UPDATE` does not conflict with the `FOR KEY SHARE` ingestion takes on its target pairs.
 * The caller holds the document row locks, so the links cannot change meanwhile.
 */
export async function lockDocumentPairs(tx: AnyTx, documentIds: string | string[]): Promise<LockedPair[]> {
  const ids = typeof documentIds === "string" ? [documentIds] : documentIds;
  return selectSql<LockedPair>(
    tx,
    Prisma.sql`
      SELECT p.id, p.status::text AS status FROM connector_credential_pair p
      WHERE p.id IN (SELECT l.cc_pair_id FROM document_by_cc_pair l WHERE l.document_id = ANY(${ids}::text[]))
      ORDER BY p.id
      FOR NO KEY UPDATE OF p`,
  );
}

/** Pairs whose attempts a document's indexing counts in: paused pairs wait, deleting pairs are going. */
export function pairsWithAttempts<Pair extends LockedPair>(pairs: Pair[]): Pair[] {
  return pairs.filter((pair) => pair.status !== "PAUSED" && pair.status !== "DELETING");
}

/**
 * How long after an attempt closed the pair's next document reopens it rather than opening a new one.
 * The worker passes SVC_ATTEMPT_QUIET_SECONDS; callers that pass nothing never reopen.
 */
export interface AttemptWindow {
  quietSeconds: number;
}

export const NEVER_REOPEN: AttemptWindow = { quietSeconds: 0 };

/** The time an attempt (alias `attempt`) last counted something; older rows have only `started_at`. */
function lastActivitySql(attempt: string): Prisma.Sql {
  const a = sqlAlias(attempt);
  return Prisma.sql`COALESCE(${a}.last_activity_at, ${a}.started_at, ${a}.created_at)`;
}

/**
 * Returns the pair's open attempt. With none open, the pair's latest attempt reopens when it is one of
 * its ingestion that closed on its own (`success`, `completed_with_errors`, `failed`; not one cut short,
 * nor a rebuild's) within the window of now; otherwise a new attempt opens (and the pair's first
 * indexing starts).
 */
export async function openAttempt(tx: AnyTx, ccPairId: number, window: AttemptWindow = NEVER_REOPEN): Promise<number> {
  // An attempt opened before a swap may belong to the retired generation: it carries on.
  const [open] = await selectSql<{ id: number }>(
    tx,
    Prisma.sql`
      SELECT ia.id FROM index_attempt ia WHERE ia.cc_pair_id = ${ccPairId} AND ia.status = 'in_progress' AND ${servingAttemptSql("ia")}
      ORDER BY ia.id DESC LIMIT 1`,
  );
  if (open) return open.id;
  if (window.quietSeconds > 0) {
    const [reopened] = await selectSql<{ id: number }>(
      tx,
      Prisma.sql`
        UPDATE index_attempt ia SET status = 'in_progress', finished_at = NULL
        WHERE ia.id = (
            SELECT latest.id FROM index_attempt latest WHERE latest.cc_pair_id = ${ccPairId} AND ${servingAttemptSql("latest")}
            ORDER BY latest.id DESC LIMIT 1)
          AND NOT ia.rebuild AND ia.status IN ('success', 'completed_with_errors', 'failed')
          AND ${lastActivitySql("ia")} >= now() - make_interval(secs => ${window.quietSeconds})
        RETURNING ia.id`,
    );
    if (reopened) {
      await syncLastAttemptStatus(tx, ccPairId);
      return reopened.id;
    }
  }
  const [created] = await selectSql<{ id: number }>(
    tx,
    Prisma.sql`
      INSERT INTO index_attempt (cc_pair_id, generation_id, status, started_at, last_activity_at)
      SELECT ${ccPairId}, g.id, 'in_progress', now(), now() FROM index_generation g WHERE g.status = 'current'
      RETURNING id`,
  );
  if (!created) throw new Error(`no index attempt was opened for pair ${ccPairId}`);
  await syncLastAttemptStatus(tx, ccPairId);
  await markPairIndexingStarted(tx, ccPairId);
  return created.id;
}

/**
 * The worker has taken up these documents (markDocumentsIndexing committed them `indexing`): each of
 * their pairs whose latest attempt is not open gets one (openAttempt, reopening within the window), so
 * the pair reads `in_progress` while its documents are being indexed rather than only between the
 * commits of a long run. Runs once per batch: a probe without locks (a named statement on the pair's
 * `last_attempt_status`) finds the pairs to open for, usually none; only those are locked, in id order,
 * in a transaction of their own (no document lock held, so it cannot deadlock with indexing). Paused
 * and deleting pairs get none.
 */
export async function openTakenAttempts(db: Db, documentIds: string[], window: AttemptWindow = NEVER_REOPEN): Promise<void> {
  if (documentIds.length === 0) return;
  const waiting = await querySql<{ id: number }>(db, { name: "svc-pairs-to-open-attempts", text: PAIRS_TO_OPEN_ATTEMPTS, values: [documentIds] });
  if (waiting.length === 0) return;
  await withSqlTransaction(db, async (sql) => {
    const pairs = await selectSql<{ id: number }>(
      sql,
      Prisma.sql`
        SELECT p.id FROM connector_credential_pair p
        WHERE p.id = ANY(${waiting.map((pair) => pair.id)}::int[]) AND p.status NOT IN ('PAUSED', 'DELETING')
        ORDER BY p.id
        FOR NO KEY UPDATE OF p`,
    );
    for (const pair of pairs) await openAttempt(sql, pair.id, window);
  });
}

const PAIRS_TO_OPEN_ATTEMPTS = `
  SELECT p.id FROM connector_credential_pair p
  WHERE p.id IN (SELECT l.cc_pair_id FROM document_by_cc_pair l WHERE l.document_id = ANY($1::text[]))
    AND p.status NOT IN ('PAUSED', 'DELETING')
    AND p.last_attempt_status IS DISTINCT FROM 'in_progress'`;

/** How many open attempts endOrphanedAttempts closed (their pair drained) and interrupted (work left). */
export interface EndedAttempts {
  closed: number;
  interrupted: number;
}

/**
 * No worker is left to carry on the pairs' indexing: the last worker is stopping, or a worker starts
 * after the others stopped or crashed (the caller knows which workers live: worker_heartbeat). Every
 * open attempt of indexing jobs ends, at its last activity: one whose pair has nothing left to index
 * ran to its end (a worker stopped between taking its last document up and closing it) and closes as
 * its counts say; one whose pair still has documents queued or half-indexed was cut off, and reads
 * `interrupted`. The pair's next documents open a new attempt (an interrupted one never reopens). A
 * pair whose row another transaction holds is being indexed by someone, and is left alone.
 */
export async function endOrphanedAttempts(db: Db): Promise<EndedAttempts> {
  return withSqlTransaction(db, async (sql) => {
    const pairs = await selectSql<{ id: number }>(
      sql,
      Prisma.sql`
        SELECT p.id FROM connector_credential_pair p
        WHERE p.id IN (SELECT ia.cc_pair_id FROM index_attempt ia WHERE ia.status = 'in_progress' AND ${servingAttemptSql("ia")})
        ORDER BY p.id
        FOR NO KEY UPDATE OF p SKIP LOCKED`,
    );
    const ids = pairs.map((pair) => pair.id);
    if (ids.length === 0) return { closed: 0, interrupted: 0 };
    const open = Prisma.sql`ia.cc_pair_id = ANY(${ids}::int[]) AND ${servingAttemptSql("ia")}`;
    const closed = await finishAttempts(sql, closeAttemptsSql(Prisma.sql`${open} AND ${drainedSql(Prisma.sql`ia.cc_pair_id`)}`));
    const interrupted = await finishAttempts(
      sql,
      Prisma.sql`
        UPDATE index_attempt ia SET status = 'interrupted', finished_at = ${lastActivitySql("ia")}
        WHERE ia.status = 'in_progress' AND ${open}`,
    );
    await syncLastAttemptStatus(sql, ids);
    return { closed: closed.length, interrupted: interrupted.length };
  });
}

/** A pair with the number of a batch's documents linked to it. */
export interface CountedPair extends LockedPair {
  documents: number;
}

/**
 * Documents were indexed: each pair's open attempt counts those linked to it, the pair is ACTIVE,
 * and the attempt closes if that drained the pair. Once per pair for a whole batch.
 */
export async function recordDocumentsIndexed(tx: AnyTx, pairs: CountedPair[], window: AttemptWindow = NEVER_REOPEN): Promise<void> {
  for (const pair of pairsWithAttempts(pairs)) {
    const attemptId = await openAttempt(tx, pair.id, window);
    await executeSql(
      tx,
      Prisma.sql`UPDATE index_attempt SET docs_indexed = docs_indexed + ${pair.documents}, last_activity_at = now() WHERE id = ${attemptId}`,
    );
    await markPairActive(tx, pair.id);
    await closeAttemptIfDrained(tx, pair.id);
  }
}

/** A document's indexing failed: it counts as failed in each pair's open attempt, which closes if that drained the pair. */
export async function recordDocumentFailed(tx: AnyTx, pairs: LockedPair[], error: string, window: AttemptWindow = NEVER_REOPEN): Promise<void> {
  for (const pair of pairsWithAttempts(pairs)) {
    const attemptId = await openAttempt(tx, pair.id, window);
    await executeSql(
      tx,
      Prisma.sql`UPDATE index_attempt SET docs_failed = docs_failed + 1, error_message = ${error}, last_activity_at = now() WHERE id = ${attemptId}`,
    );
    await closeAttemptIfDrained(tx, pair.id);
  }
}

/**
 * How an attempt (an `index_attempt` row under the alias `attempt`) ends, from its counts: `success`
 * when nothing failed, `failed` when nothing was indexed, `completed_with_errors` otherwise.
 */
function finishedStatusSql(attempt: string): Prisma.Sql {
  const a = sqlAlias(attempt);
  return Prisma.sql`(CASE
    WHEN ${a}.docs_failed = 0 THEN 'success'
    WHEN ${a}.docs_indexed = 0 THEN 'failed'
    ELSE 'completed_with_errors' END)::"IndexingStatus"`;
}

/**
 * Runs an UPDATE that closes attempts (`index_attempt ia`) and tells each in an `attempt.finished`
 * event, in the same transaction. Returns the closed rows.
 */
async function finishAttempts(tx: AnyTx, update: Prisma.Sql): Promise<FinishedAttempt[]> {
  const closed = await selectSql<FinishedAttempt>(
    tx,
    Prisma.sql`${update} RETURNING ia.cc_pair_id, ia.status::text AS status, ia.docs_indexed, ia.docs_failed, ia.error_message`,
  );
  await recordAttemptsFinishedEvents(tx, closed);
  return closed;
}

/**
 * Closes attempts (rows of `index_attempt ia` matching `where`) at their last activity, each with the
 * status its counts give.
 */
function closeAttemptsSql(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    UPDATE index_attempt ia SET finished_at = ${lastActivitySql("ia")}, status = ${finishedStatusSql("ia")}
    WHERE ia.status = 'in_progress' AND ${where}`;
}

/**
 * Whether the pair (an SQL expression) has no document left to index. The probe starts from the
 * pending documents (the `indexing_status` index; few rows once a pair drains) and checks each one's
 * link to the pair on the link key, rather than joining all of the pair's links (5.7 ms at 20k links):
 * it runs once per pair for every batch.
 */
function drainedSql(ccPairId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`NOT EXISTS (
    SELECT 1 FROM document d
    WHERE d.indexing_status IN ('queued', 'indexing')
      AND EXISTS (SELECT 1 FROM document_by_cc_pair l WHERE l.document_id = d.id AND l.cc_pair_id = ${ccPairId}))`;
}

/**
 * Closes the pair's open attempt once none of its documents is left to index, at its last activity:
 * `success` when nothing failed, `failed` when nothing was indexed, `completed_with_errors` otherwise.
 */
export async function closeAttemptIfDrained(tx: AnyTx, ccPairId: number): Promise<void> {
  await closePairAttempt(tx, ccPairId, drainedSql(Prisma.sql`${ccPairId}`));
}

/**
 * The pair is being paused: its open attempt closes as closeAttemptIfDrained closes one, whatever is
 * left queued, since nothing of the pair is indexed until it is resumed (the resume's documents reopen
 * it within the quiet period).
 */
export async function closePausedPairAttempt(tx: AnyTx, ccPairId: number): Promise<void> {
  await closePairAttempt(tx, ccPairId, Prisma.sql`TRUE`);
}

async function closePairAttempt(tx: AnyTx, ccPairId: number, condition: Prisma.Sql): Promise<void> {
  const closed = await finishAttempts(tx, closeAttemptsSql(Prisma.sql`ia.cc_pair_id = ${ccPairId} AND ${servingAttemptSql("ia")} AND ${condition}`));
  if (closed.length > 0) await syncLastAttemptStatus(tx, ccPairId);
}

/**
 * The worker's sweep, a safety net under closeAttemptIfDrained: closes every open attempt of indexing
 * jobs whose pair has nothing left to index, at its last activity (an attempt opened for documents the
 * indexing then skipped, a newer version or a deletion having come in between, or one left open
 * by an earlier release, which kept attempts open through a quiet period). Takes the pair rows it
 * closes for (in id order, skipping those another transaction holds: a pair being indexed is not
 * drained), so it is safe in several workers at once. Returns how many attempts it closed.
 */
export async function closeDrainedAttempts(db: Db): Promise<number> {
  return withSqlTransaction(db, async (sql) => {
    const pairs = await selectSql<{ id: number }>(
      sql,
      Prisma.sql`
        SELECT p.id FROM connector_credential_pair p
        WHERE p.id IN (SELECT ia.cc_pair_id FROM index_attempt ia WHERE ia.status = 'in_progress' AND ${servingAttemptSql("ia")})
        ORDER BY p.id
        FOR NO KEY UPDATE OF p SKIP LOCKED`,
    );
    const ids = pairs.map((pair) => pair.id);
    if (ids.length === 0) return 0;
    const closed = await finishAttempts(
      sql,
      closeAttemptsSql(Prisma.sql`
        ia.cc_pair_id = ANY(${ids}::int[]) AND ${servingAttemptSql("ia")} AND ${drainedSql(Prisma.sql`ia.cc_pair_id`)}`),
    );
    if (closed.length > 0) await syncLastAttemptStatus(sql, closed.map((row) => row.cc_pair_id));
    return closed.length;
  });
}

/** A pair's counts from a batch of a rebuild. */
export interface GenerationAttemptCount {
  cc_pair_id: number;
  indexed: number;
  failed: number;
  error: string | null;
}

/**
 * A rebuild's attempts (indexing/run-index-rebuild.ts), one per pair in the generation being built,
 * marked `rebuild`: adds a batch's counts to each pair's open attempt, opening it (`in_progress`) the
 * first time.
 */
export async function countInGenerationAttempts(tx: AnyTx, generationId: number, counts: GenerationAttemptCount[]): Promise<void> {
  await executeSql(
    tx,
    Prisma.sql`
      WITH counts AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(counts)}::jsonb)
          AS c(cc_pair_id int, indexed int, failed int, error text)
      ), counted AS (
        UPDATE index_attempt ia SET docs_indexed = ia.docs_indexed + c.indexed, docs_failed = ia.docs_failed + c.failed,
          error_message = COALESCE(c.error, ia.error_message), last_activity_at = now()
        FROM counts c
        WHERE ia.cc_pair_id = c.cc_pair_id AND ia.generation_id = ${generationId} AND ia.status = 'in_progress'
        RETURNING ia.cc_pair_id
      )
      INSERT INTO index_attempt (cc_pair_id, generation_id, rebuild, status, started_at, last_activity_at, docs_indexed, docs_failed, error_message)
      SELECT c.cc_pair_id, ${generationId}, TRUE, 'in_progress', now(), now(), c.indexed, c.failed, c.error
      FROM counts c WHERE c.cc_pair_id NOT IN (SELECT cc_pair_id FROM counted)`,
  );
}

/** Locks, in id order, the pairs that have an attempt in the generation; returns their ids. */
export async function lockGenerationAttemptPairs(tx: AnyTx, generationId: number): Promise<number[]> {
  const pairs = await selectSql<{ id: number }>(
    tx,
    Prisma.sql`
      SELECT p.id FROM connector_credential_pair p
      WHERE p.id IN (SELECT ia.cc_pair_id FROM index_attempt ia WHERE ia.generation_id = ${generationId})
      ORDER BY p.id
      FOR NO KEY UPDATE OF p`,
  );
  return pairs.map((pair) => pair.id);
}

/** Closes the generation's open attempts at the swap, each from its counts. */
export async function closeGenerationAttempts(tx: AnyTx, generationId: number): Promise<void> {
  await finishAttempts(
    tx,
    Prisma.sql`
      UPDATE index_attempt ia SET status = ${finishedStatusSql("ia")}, finished_at = now()
      WHERE ia.generation_id = ${generationId} AND ia.status = 'in_progress'`,
  );
}

/** How a rebuild's open attempts end when its run does not reach the swap. */
export type CutShortStatus = "canceled" | "interrupted";

/**
 * Ends the generation's open attempts that a rebuild's run left: `canceled` when a user canceled the
 * rebuild, at the cancel (the caller has made the generation `canceled`, so from then on they count
 * as their pairs' attempts: it locks the pairs with lockGenerationAttemptPairs and syncs their
 * status); `interrupted` when the run was cut off (a stopping worker's run, or, when a run starts, an
 * earlier run of a crashed worker: pg-boss runs the job again only once that run's heartbeat lapsed
 * or it threw), at their last activity, and the next run opens new ones as it counts. Returns how many
 * it ended.
 */
export async function endGenerationAttempts(tx: AnyTx, generationId: number, status: CutShortStatus): Promise<number> {
  const finishedAt = status === "canceled" ? Prisma.sql`now()` : lastActivitySql("ia");
  const ended = await finishAttempts(
    tx,
    Prisma.sql`
      UPDATE index_attempt ia SET status = ${status}::"IndexingStatus", finished_at = ${finishedAt}
      WHERE ia.generation_id = ${generationId} AND ia.status = 'in_progress'`,
  );
  return ended.length;
}

/** A purged pair leaves no attempts behind. */
export async function deletePairAttempts(tx: AnyTx, ccPairId: number): Promise<void> {
  await executeSql(tx, Prisma.sql`DELETE FROM index_attempt WHERE cc_pair_id = ${ccPairId}`);
}
