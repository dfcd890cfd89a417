// Factories for test data, shared by the tests of core, the worker and the web app: each makes its
// rows through the same core functions production uses, so a test never seeds a state the service
// could not reach (tests that need a crafted history insert it themselves, and say so).
import type { AccessType, ApiKeyRole, Db, DocumentSource } from "@svc/db";
import { waitFor, type WaitForOptions } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { createApiKey, createCcPair, indexDocuments, ingestDocument, OPERATOR_PRINCIPAL, optimizeSearchIndex } from "../index";
import type { IndexDocumentPayload, PgBoss, Principal } from "../index";
import { testSearchIndex } from "./test-search-index";

/** A document to ingest: one text section unless `fields` gives `sections`. */
export interface TestDocument {
  id: string;
  /** The text of its one section; `text of <id>` by default. */
  text?: string;
  /** Its semantic identifier (the chunks' title); `Doc <id>` by default. */
  title?: string;
  /** The section's link; none by default. */
  link?: string;
  /** The pair to ingest into; the default pair when omitted. */
  ccPairId?: number;
  /** More `document` fields, as on the wire (`sections`, `metadata`, `external_access`…); they win. */
  fields?: Record<string, unknown>;
}

/** The wire body of POST /svc-api/ingestion for a test document. */
export function testIngestionBody({ id, text = `text of ${id}`, title = `Doc ${id}`, link, ccPairId, fields = {} }: TestDocument) {
  const section = link === undefined ? { text } : { text, link };
  return {
    document: { id, semantic_identifier: title, sections: [section], metadata: {}, ...fields },
    ...(ccPairId === undefined ? {} : { cc_pair_id: ccPairId }),
  };
}

/**
 * POSTs one ingestion to the svc serving at `base` (`http://host:port`; the /api prefix is added here)
 * with a bearer `key`. `body` is a JSON value, or a string sent as it is. The answer as it is.
 */
export function postTestIngestion(base: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${base}/api/svc-api/ingestion`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/**
 * Ingests a document through core's ingestion (document and job committed together, as the REST route
 * does) and returns the job of the version it wrote, for a test that runs indexing itself.
 */
export async function ingestTestDocument(
  { db, boss }: { db: Db; boss: PgBoss },
  document: TestDocument,
  principal: Principal = OPERATOR_PRINCIPAL,
): Promise<IndexDocumentPayload> {
  const written = await ingestDocument({ db, boss, principal, input: IngestionDocumentSchema.parse(testIngestionBody(document)) });
  const [job] = await currentIndexJobs(db, [written.documentId]);
  if (!job) throw new Error(`${written.documentId} was not written`);
  return job;
}

/** The indexing job of each document's current version (the payload the worker would receive). */
export async function currentIndexJobs(db: Db, ids: string[]): Promise<IndexDocumentPayload[]> {
  const rows = await db.document.findMany({ where: { id: { in: ids } }, select: { id: true, version: true }, orderBy: { id: "asc" } });
  return rows.map((row) => ({ documentId: row.id, version: row.version }));
}

/**
 * Indexes the documents at their current version in one batch, as the worker would, in this process,
 * then merges the search index as the worker's schedule does seconds later (rows not yet merged are
 * found by their words before the merge, and ranked exactly after it: decisions.md).
 */
export async function indexTestDocuments(db: Db, ids: string[]): Promise<void> {
  await indexDocuments({ db, index: testSearchIndex(), jobs: await currentIndexJobs(db, ids) });
  await optimizeSearchIndex({ db, index: testSearchIndex() });
}

/** Ingests the documents one by one, then indexes them in one batch, as the worker would. */
export async function ingestAndIndexTestDocuments(services: { db: Db; boss: PgBoss }, documents: TestDocument[]): Promise<void> {
  for (const document of documents) await ingestTestDocument(services, document);
  await indexTestDocuments(services.db, documents.map((document) => document.id));
}

/** Waits (30 s unless told otherwise) until a running worker has indexed every one of the documents. */
export async function waitForIndexed(db: Db, ids: string[], options: WaitForOptions = {}): Promise<void> {
  await waitFor(
    `${ids.length} document(s) indexed`,
    async () => ((await db.document.count({ where: { id: { in: ids }, indexingStatus: "indexed" } })) === ids.length ? true : undefined),
    options,
  );
}

let pairsCreated = 0;

/** Creates a connector-credential pair (status SCHEDULED) and returns its id; named `Pair <n>` by default. */
export async function createTestPair(
  db: Db,
  { name, source = "web", access = "public" }: { name?: string; source?: DocumentSource; access?: AccessType } = {},
): Promise<number> {
  pairsCreated += 1;
  return (await createCcPair({ db, name: name ?? `Pair ${pairsCreated}`, source, accessType: access })).ccPairId;
}

/** Creates an API key of the role, scoped to the pairs when any are given, and returns the plain key. */
export async function createTestKey(db: Db, role: ApiKeyRole, ccPairIds: number[] = [], name = `test ${role}`): Promise<string> {
  return (await createApiKey({ db, name, role, ccPairIds })).key;
}
