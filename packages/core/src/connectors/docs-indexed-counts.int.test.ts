// Property: whatever happens to documents and pairs (index rebuilds included), every pair's stored
// `docs_indexed` equals COUNT(*) of its links whose indexing has completed, links follow a simple
// model, and once rebuilds are done and cleaned up every indexed document has chunks in the current
// index generation and in no other.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OPERATOR_PRINCIPAL } from "../auth/principal";
import { deleteDocument } from "../documents/delete-document";
import { isAppError } from "../errors/app-error";
import { indexDocuments } from "../indexing/index-documents";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { testSearchIndex } from "../testing/test-search-index";
import { createTestPair, ingestTestDocument } from "../testing/factories";
import { deleteCcPair } from "./delete-cc-pair";
import { purgeCcPair } from "./purge-cc-pair";
import { cancelIndexRebuild } from "../indexing/cancel-index-rebuild";
import { getIndexRebuildStatus } from "../search-index/get-index-rebuild-status";
import { purgeIndexGeneration } from "../indexing/purge-index-generation";
import { runIndexRebuild } from "../indexing/run-index-rebuild";
import { startIndexRebuild } from "../search-index/start-index-rebuild";

const queue = await useTestJobQueue();
const { db, boss } = queue;

const PAIRS = 3;
const DOCUMENTS = 6;

/** What a run may do. Rebuilds change no link, so the model ignores them; the invariant stays the same. */
type Command =
  /** Ingest (first time, again, or into another pair) document `doc` into pair slot `pair`. */
  | { kind: "ingest"; doc: number; pair: number }
  /** Run the indexing job of the document's current version (a second run is a no-op). */
  | { kind: "index"; doc: number }
  /** Run a job for a version that is no longer current (skipped by the handler). */
  | { kind: "indexStale"; doc: number }
  /** DELETE the pair, then its deletion job runs. */
  | { kind: "deletePair"; pair: number }
  /** DELETE the pair: it goes to DELETING; its job has not run yet. */
  | { kind: "markDeleting"; pair: number }
  /** Run the pair's deletion job (a no-op unless the pair is DELETING). */
  | { kind: "purge"; pair: number }
  /** DELETE the document (through the ingestion API's delete; unknown ids are a 404). */
  | { kind: "deleteDocument"; doc: number }
  /** Start an index rebuild (409 while one runs); the commands after it run during the rebuild. */
  | { kind: "startRebuild"; chunkTokenLimit: number }
  /** Run one batch (two documents) of the rebuild's job, as if it were cut off there. */
  | { kind: "stepRebuild" }
  /** Run the rebuild's job to the swap, in small batches, and purge the replaced generation. */
  | { kind: "finishRebuild" }
  /** Start a rebuild and run it to completion. */
  | { kind: "rebuild"; chunkTokenLimit: number }
  /** Cancel the running rebuild (404 when none runs) and purge its generation. */
  | { kind: "cancelRebuild" };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("ingest" as const), doc: fc.nat(DOCUMENTS - 1), pair: fc.nat(PAIRS - 1) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("index" as const), doc: fc.nat(DOCUMENTS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("indexStale" as const), doc: fc.nat(DOCUMENTS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deletePair" as const), pair: fc.nat(PAIRS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("markDeleting" as const), pair: fc.nat(PAIRS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("purge" as const), pair: fc.nat(PAIRS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("deleteDocument" as const), doc: fc.nat(DOCUMENTS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("startRebuild" as const), chunkTokenLimit: fc.constantFrom(128, 512) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("stepRebuild" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("finishRebuild" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rebuild" as const), chunkTokenLimit: fc.constantFrom(128, 512) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelRebuild" as const) }) },
);

/** Expected links: document slot → pair slots; and the pairs that are DELETING or gone. */
interface Model {
  links: Map<number, Set<number>>;
  deleting: Set<number>;
  gone: Set<number>;
}

function applyToModel(model: Model, command: Command): void {
  switch (command.kind) {
    case "ingest":
      if (model.deleting.has(command.pair) || model.gone.has(command.pair)) return;
      model.links.set(command.doc, (model.links.get(command.doc) ?? new Set()).add(command.pair));
      return;
    case "markDeleting":
      if (!model.gone.has(command.pair)) model.deleting.add(command.pair);
      return;
    case "deletePair":
      applyToModel(model, { kind: "markDeleting", pair: command.pair });
      applyToModel(model, { kind: "purge", pair: command.pair });
      return;
    case "purge":
      if (!model.deleting.has(command.pair)) return;
      model.deleting.delete(command.pair);
      model.gone.add(command.pair);
      for (const [doc, pairs] of model.links) {
        pairs.delete(command.pair);
        if (pairs.size === 0) model.links.delete(doc);
      }
      return;
    case "deleteDocument":
      model.links.delete(command.doc);
      return;
    case "index":
    case "indexStale":
    case "startRebuild":
    case "stepRebuild":
    case "finishRebuild":
    case "rebuild":
    case "cancelRebuild":
      return;
  }
}

/** Pairs whose stored count differs from a count of their links (over the whole database). */
async function countMismatches(): Promise<unknown[]> {
  return db.$queryRaw`
    SELECT p.id, p.docs_indexed, count(l.document_id) FILTER (WHERE l.has_been_indexed)::int AS counted
    FROM connector_credential_pair p
    LEFT JOIN document_by_cc_pair l ON l.cc_pair_id = p.id
    GROUP BY p.id
    HAVING p.docs_indexed <> count(l.document_id) FILTER (WHERE l.has_been_indexed)`;
}

let runNumber = 0;

async function execute(command: Command, pairIds: number[], docId: (slot: number) => string): Promise<void> {
  switch (command.kind) {
    case "ingest": {
      const id = docId(command.doc);
      try {
        await ingestTestDocument(queue, { id, text: "words", title: id, ccPairId: pairIds[command.pair] });
      } catch (error) {
        // Pairs that are DELETING or gone refuse documents.
        if (!isAppError(error) || error.code !== "BAD_REQUEST") throw error;
      }
      return;
    }
    case "index":
    case "indexStale": {
      const document = await db.document.findUnique({ where: { id: docId(command.doc) }, select: { version: true } });
      if (!document) return;
      const version = command.kind === "index" ? document.version : document.version - 1;
      if (version >= 1) await indexDocuments({ index: testSearchIndex(), db, jobs: [{ documentId: docId(command.doc), version }] });
      return;
    }
    case "markDeleting": {
      try {
        await deleteCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId: pairIds[command.pair] ?? 0 });
      } catch (error) {
        if (!isAppError(error) || error.code !== "NOT_FOUND") throw error;
      }
      return;
    }
    case "purge":
      // A small batch size, so that runs go through several batches.
      await purgeCcPair({ index: testSearchIndex(), db, ccPairId: pairIds[command.pair] ?? 0, batchSize: 2 });
      return;
    case "deletePair":
      await execute({ kind: "markDeleting", pair: command.pair }, pairIds, docId);
      await execute({ kind: "purge", pair: command.pair }, pairIds, docId);
      return;
    case "deleteDocument":
      try {
        await deleteDocument({ index: testSearchIndex(), db, principal: OPERATOR_PRINCIPAL, documentId: docId(command.doc) });
      } catch (error) {
        if (!isAppError(error) || error.code !== "NOT_FOUND") throw error;
      }
      return;
    case "startRebuild":
      try {
        await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL, chunkTokenLimit: command.chunkTokenLimit });
      } catch (error) {
        if (!isAppError(error) || error.code !== "CONFLICT") throw error;
      }
      return;
    case "stepRebuild": {
      const { rebuild, current } = await getIndexRebuildStatus({ db });
      if (rebuild === null) return;
      await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId: rebuild.generationId, batchSize: 2, maxBatches: 1 });
      // A step that completes the pass swaps; the purge job the swap sends has no worker here, so
      // purge as the worker would (a no-op while the generation is still current).
      await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: current.generationId, batchSize: 50 });
      return;
    }
    case "finishRebuild": {
      const { rebuild, current } = await getIndexRebuildStatus({ db });
      if (rebuild === null) return;
      // Larger batches than a step's: the database keeps every earlier run's documents.
      await runIndexRebuild({ index: testSearchIndex(), db, boss, generationId: rebuild.generationId, batchSize: 50 });
      await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: current.generationId, batchSize: 50 });
      return;
    }
    case "rebuild":
      await execute({ kind: "startRebuild", chunkTokenLimit: command.chunkTokenLimit }, pairIds, docId);
      await execute({ kind: "finishRebuild" }, pairIds, docId);
      return;
    case "cancelRebuild":
      try {
        const { lastRebuild: canceled } = await cancelIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
        await purgeIndexGeneration({ index: testSearchIndex(), db, generationId: canceled?.generationId ?? 0 });
      } catch (error) {
        if (!isAppError(error) || error.code !== "NOT_FOUND") throw error;
      }
      return;
  }
}

/**
 * Documents whose chunks are not exactly where they belong once rebuilds are done and cleaned up:
 * an indexed document without chunks in the current generation, or any chunk in another generation.
 */
async function misplacedChunks(): Promise<unknown[]> {
  return db.$queryRaw`
    SELECT d.id, d.indexed_version, g.id AS generation_id, g.status::text AS status
    FROM document d
    LEFT JOIN document_chunk c ON c.document_id = d.id
    LEFT JOIN index_generation g ON g.id = c.generation_id
    WHERE (d.indexed_version IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM document_chunk cc JOIN index_generation cg ON cg.id = cc.generation_id
        WHERE cc.document_id = d.id AND cg.status = 'current'))
      OR g.status <> 'current'`;
}

describe("docs_indexed", () => {
  it("always equals the number of the pair's indexed links, and links follow the model", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArbitrary, { minLength: 1, maxLength: 40, size: "max" }), async (commands) => {
        runNumber += 1;
        // Later runs sort first, so a rebuild's pass (in id order) reaches this run's documents within
        // a few batches: documents indexed after it passed them must come from their indexing job.
        const runPrefix = `run-${String(100_000 - runNumber).padStart(6, "0")}-`;
        const docId = (slot: number) => `${runPrefix}doc-${slot}`;
        const pairIds: number[] = [];
        for (let slot = 0; slot < PAIRS; slot += 1) {
          pairIds.push(await createTestPair(db, { name: `run ${runNumber} pair ${slot}`, source: "file" }));
        }
        const model: Model = { links: new Map(), deleting: new Set(), gone: new Set() };

        for (const command of commands) {
          await execute(command, pairIds, docId);
          applyToModel(model, command);
          expect(await countMismatches()).toEqual([]);
        }

        const links = await db.documentByCcPair.findMany({
          where: { documentId: { startsWith: runPrefix } },
          select: { documentId: true, ccPairId: true },
        });
        const actual = links.map((link) => `${link.documentId}@${pairIds.indexOf(link.ccPairId)}`).sort();
        const expected = [...model.links].flatMap(([doc, pairs]) => [...pairs].map((pair) => `${docId(doc)}@${pair}`)).sort();
        expect(actual).toEqual(expected);
        // Every document of the run still held by a pair exists; every other one is gone.
        const documents = await db.document.findMany({ where: { id: { startsWith: runPrefix } }, select: { id: true } });
        expect(documents.map((document) => document.id).sort()).toEqual([...model.links.keys()].map(docId).sort());
        const remainingPairs = await db.connectorCredentialPair.count({ where: { id: { in: pairIds } } });
        expect(remainingPairs).toBe(PAIRS - model.gone.size);

        // A rebuild left running finishes; then chunks are in the current generation only.
        await execute({ kind: "finishRebuild" }, pairIds, docId);
        expect(await countMismatches()).toEqual([]);
        expect(await misplacedChunks()).toEqual([]);
      }),
      { numRuns: 40 },
    );
    // Each command also writes the search index (a LanceDB commit and merge per batch, a table per
    // rebuild): the 40 runs take ~45 s on the 2-core machine.
  }, 180_000);
});
