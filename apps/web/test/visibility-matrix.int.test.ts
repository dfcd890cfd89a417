// docs/decisions.md "Search and who sees what": one rule decides what a key sees, on every path. Every
// REST route and every tRPC procedure is classified here; each one that reads documents or pairs is
// tried with keys of each role and scope against a document of each visibility, and must show exactly
// what the rule allows. A route or procedure added without a line in these tables fails the first test.
import { indexDocumentJob } from "@svc/core";
import { createTestPair } from "@svc/core/testing";
import type { ApiKeyRole } from "@svc/db";
import { DocMinimalInfoListSchema, REST_CONTRACT, type RestOperationId } from "@svc/schema";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../server/trpc/router";
import { getServices } from "../server/services";
import { useTestApp } from "./app";
import { sendIndexingJobsWithoutRetries } from "./dead-letter";
import { eventsUntilLive, waitForFinalEvents } from "./event-stream";
import { ingestAndIndexOverApi } from "./factories";
import { signedIn, type Caller } from "./trpc/console";

const app = useTestApp();

type PairName = "own" | "otherPrivate" | "public";
type DocumentName = "own" | "otherPrivate" | "public" | "publicRestricted" | "isPublicInPrivate";

/** The documents, each in one pair, with the external_access it was sent with (none when absent). */
const DOCUMENTS: Record<DocumentName, { pair: PairName; externalAccess?: Record<string, unknown> }> = {
  own: { pair: "own" },
  otherPrivate: { pair: "otherPrivate" },
  public: { pair: "public" },
  publicRestricted: {
    pair: "public",
    externalAccess: { is_public: false, external_user_emails: ["alice@example.com"], external_user_group_ids: ["eng"] },
  },
  isPublicInPrivate: { pair: "otherPrivate", externalAccess: { is_public: true, external_user_emails: [], external_user_group_ids: [] } },
};
const DOCUMENT_NAMES = Object.keys(DOCUMENTS) as DocumentName[];
const PAIR_NAMES: PairName[] = ["own", "otherPrivate", "public"];
const WORD = "quillmatrix";
const documentId = (name: DocumentName) => `matrix-${name}`;
const documentName = (id: string) => DOCUMENT_NAMES.find((name) => documentId(name) === id);

/** What a key sees by the rule: scoped to the "own" pair, or not scoped. Stated here, not computed by the code under test. */
interface Seen {
  documents: DocumentName[];
  pairs: PairName[];
}
const EVERYTHING: Seen = { documents: DOCUMENT_NAMES, pairs: PAIR_NAMES };
const SCOPED_TO_OWN: Seen = { documents: ["own", "public", "isPublicInPrivate"], pairs: ["own", "public"] };

interface Reader {
  role: ApiKeyRole;
  /** Scoped to the "own" pair, or not scoped. */
  scoped: boolean;
  seen: Seen;
  key: string;
  /** Its console session; null when the console refuses the key's role. */
  console: Caller | null;
}
const READERS: Record<string, Omit<Reader, "key" | "console">> = {
  "unscoped admin": { role: "admin", scoped: false, seen: EVERYTHING },
  "admin scoped to own": { role: "admin", scoped: true, seen: SCOPED_TO_OWN },
  "curator scoped to own": { role: "curator", scoped: true, seen: SCOPED_TO_OWN },
  "unscoped curator": { role: "curator", scoped: false, seen: EVERYTHING },
  "unscoped basic": { role: "basic", scoped: false, seen: EVERYTHING },
  "limited scoped to own": { role: "limited", scoped: true, seen: SCOPED_TO_OWN },
};
const readers: Record<string, Reader> = {};
const pairIds = {} as Record<PairName, number>;
const pairName = (id: number) => PAIR_NAMES.find((name) => pairIds[name] === id);

/** What a route answers a key whose role it does not serve, whatever it is asked. */
const REFUSED = "refused by role";
const CONSOLE_ROLES: readonly ApiKeyRole[] = ["admin", "curator"];

/**
 * A route that reads what a key may see: what it shows the reader, and what it should by the rule to a
 * role it serves (the contract's roles for REST, the console's for tRPC; any other role is refused).
 */
interface Probed {
  probe: (reader: Reader) => Promise<unknown>;
  expected: (seen: Seen, reader: Reader) => unknown;
}
/** A route that shows no document and no pair (or only changes): why it needs no probe. */
interface Unprobed {
  unprobed: string;
}
type RouteCase = Probed | Unprobed;

const sorted = <T extends string>(values: Iterable<T>): T[] => [...values].sort();
const documentsOfPairs = (seen: Seen) => seen.documents.filter((name) => seen.pairs.includes(DOCUMENTS[name].pair));
/** Documents the reader may not change (so a change is refused, by 403 when it sees them): those outside its scope. */
const unchangeable = (reader: Reader) => (reader.scoped ? DOCUMENT_NAMES.filter((name) => DOCUMENTS[name].pair !== "own") : []);
const matrixIds = (ids: Iterable<string>) => sorted([...ids].map(documentName).filter((name) => name !== undefined));

// ---- REST ----------------------------------------------------------------------------------------

async function rest(reader: Reader, method: string, path: string, body?: unknown): Promise<Response> {
  return app.request(method, `/api${path}`, { key: reader.key, ...(body === undefined ? {} : { body }) });
}

/** Whether the answer is the dispatcher's refusal of the key's role (403 before anything is read). */
async function isRoleRefusal(response: Response): Promise<boolean> {
  if (response.status !== 403) return false;
  const { detail } = (await response.clone().json()) as { detail: unknown };
  return typeof detail === "string" && detail.startsWith("This operation needs one of the roles");
}

/** 200 → true, 404 → false; anything else fails the test. */
function shown(response: Response, what: string): boolean {
  if (response.status === 200) return true;
  if (response.status === 404) return false;
  throw new Error(`${what}: unexpected ${response.status}`);
}

const listedIds = async (response: Response) => DocMinimalInfoListSchema.parse(await response.json()).map((row) => row.document_id);

async function restSearchProbe(reader: Reader): Promise<unknown> {
  const search = async (filters: Record<string, unknown> | null) => {
    const response = await rest(reader, "POST", "/svc-api/search", { query: WORD, limit: 50, ...(filters ? { filters } : {}) });
    if (await isRoleRefusal(response)) return REFUSED;
    expect(response.status).toBe(200);
    return matrixIds(((await response.json()) as { results: { document_id: string }[] }).results.map((result) => result.document_id));
  };
  const plain = await search(null);
  if (plain === REFUSED) return REFUSED;
  const byPair = await Promise.all(PAIR_NAMES.map((pair) => search({ cc_pair_ids: [pairIds[pair]] })));
  return { plain, byPairFilter: sorted(byPair.flat()) };
}

async function restPairDocumentsProbe(reader: Reader): Promise<unknown> {
  const pairs: PairName[] = [];
  const paged = new Set<string>();
  const streamed = new Set<string>();
  for (const pair of PAIR_NAMES) {
    const page = await rest(reader, "GET", `/svc-api/connector-docs/${pairIds[pair]}?limit=1000`);
    if (await isRoleRefusal(page)) return REFUSED;
    if (!shown(page, `connector-docs ${pair}`)) continue;
    pairs.push(pair);
    for (const id of await listedIds(page)) paged.add(id);
    for (const id of await listedIds(await rest(reader, "GET", `/svc-api/connector-docs/${pairIds[pair]}`))) streamed.add(id);
  }
  return { pairs, documents: matrixIds(paged), streamed: matrixIds(streamed) };
}

async function restPairsProbe(reader: Reader, read: (pair: PairName) => Promise<Response>): Promise<unknown> {
  const pairs: PairName[] = [];
  for (const pair of PAIR_NAMES) {
    const response = await read(pair);
    if (await isRoleRefusal(response)) return REFUSED;
    if (shown(response, `pair ${pair}`)) pairs.push(pair);
  }
  return pairs;
}

/** Changes refused for each document the reader may not change: 403 when it sees it, 404 (as for an unknown id) when not. */
async function restChangeProbe(reader: Reader, method: string, path: (id: string) => string): Promise<unknown> {
  const gate = await rest(reader, method, path("matrix-no-such-document"));
  if (await isRoleRefusal(gate)) return REFUSED;
  expect(gate.status).toBe(404);
  const visible: DocumentName[] = [];
  for (const name of unchangeable(reader)) {
    const response = await rest(reader, method, path(documentId(name)));
    if (response.status === 403) visible.push(name);
    else expect(response.status, name).toBe(404);
  }
  return visible;
}

const changesRefused = (seen: Seen, reader: Reader) => seen.documents.filter((name) => unchangeable(reader).includes(name));
const documentPath = (id: string) => `/svc-api/ingestion/${encodeURIComponent(id)}`;

const REST_ROUTES: Record<RestOperationId, RouteCase> = {
  getHealth: { unprobed: "liveness: no data" },
  getReadiness: { unprobed: "readiness checks: no data" },
  getServiceInstance: { unprobed: "the database's id: no document or pair" },
  upsertIngestionDocument: { unprobed: "a write: the scope check for writes is scoped-keys.int.test.ts's" },
  ingestDocumentBatch: { unprobed: "a write: the scope check for writes is scoped-keys.int.test.ts's" },
  listIngestedDocuments: {
    probe: async (reader) => {
      const page = await rest(reader, "GET", "/svc-api/ingestion?limit=1000");
      if (await isRoleRefusal(page)) return REFUSED;
      return { paged: matrixIds(await listedIds(page)), streamed: matrixIds(await listedIds(await rest(reader, "GET", "/svc-api/ingestion"))) };
    },
    expected: (seen) => ({ paged: sorted(seen.documents), streamed: sorted(seen.documents) }),
  },
  getIngestionDocument: {
    probe: async (reader) => {
      const visible: DocumentName[] = [];
      for (const name of DOCUMENT_NAMES) {
        const response = await rest(reader, "GET", documentPath(documentId(name)));
        if (await isRoleRefusal(response)) return REFUSED;
        if (shown(response, name)) visible.push(name);
      }
      return sorted(visible);
    },
    expected: (seen) => sorted(seen.documents),
  },
  deleteIngestionDocument: { probe: (reader) => restChangeProbe(reader, "DELETE", documentPath), expected: changesRefused },
  listCcPairDocuments: {
    probe: restPairDocumentsProbe,
    expected: (seen) => ({ pairs: seen.pairs, documents: sorted(documentsOfPairs(seen)), streamed: sorted(documentsOfPairs(seen)) }),
  },
  // Replayed from the oldest event kept: a document's events as GET decides, an attempt's as its pair.
  streamEvents: {
    probe: async (reader) => {
      await waitForFinalEvents(app.db);
      const replay = async (filter: string) => {
        const response = await rest(reader, "GET", `/svc-api/events?after=evt_0${filter}`);
        if (await isRoleRefusal(response)) return REFUSED;
        expect(response.status).toBe(200);
        return eventsUntilLive(response);
      };
      const all = await replay("");
      if (all === REFUSED) return REFUSED;
      const indexed = (events: Exclude<typeof all, typeof REFUSED>) =>
        matrixIds(events.filter((event) => event.type === "document.indexed").map((event) => event.document_id ?? ""));
      const byPair = await Promise.all(PAIR_NAMES.map((pair) => replay(`&cc_pair_id=${pairIds[pair]}`)));
      const shownPairs = new Set(all.flatMap((event) => event.cc_pair_ids).map(pairName));
      return {
        documents: indexed(all),
        attempts: PAIR_NAMES.filter((pair) => all.some((event) => event.type === "attempt.finished" && event.cc_pair_ids.includes(pairIds[pair]))),
        pairsShown: PAIR_NAMES.filter((pair) => shownPairs.has(pair)),
        byPairFilter: sorted(byPair.flatMap((events) => (events === REFUSED ? [] : indexed(events)))),
      };
    },
    // A pair filter matches the pairs the key sees: a scoped key's filter on another private pair finds nothing.
    expected: (seen) => ({ documents: sorted(seen.documents), attempts: seen.pairs, pairsShown: seen.pairs, byPairFilter: sorted(documentsOfPairs(seen)) }),
  },
  searchDocuments: { probe: restSearchProbe, expected: (seen) => ({ plain: sorted(seen.documents), byPairFilter: sorted(seen.documents) }) },
  getConnectorIndexingStatus: {
    probe: async (reader) => {
      const response = await rest(reader, "POST", "/manage/admin/connector/indexing-status", {});
      if (await isRoleRefusal(response)) return REFUSED;
      const groups = (await response.json()) as { indexing_statuses: { cc_pair_id?: number }[] }[];
      const ids = groups.flatMap((group) => group.indexing_statuses.map((row) => row.cc_pair_id ?? 0));
      return PAIR_NAMES.filter((pair) => ids.includes(pairIds[pair]));
    },
    expected: (seen) => seen.pairs,
  },
  createCcPair: { unprobed: "creates a pair: reads nothing" },
  getCcPair: {
    probe: (reader) => restPairsProbe(reader, (pair) => rest(reader, "GET", `/manage/admin/cc-pair/${pairIds[pair]}`)),
    expected: (seen) => seen.pairs,
  },
  updateCcPair: { unprobed: "a pair change (canEditPair): scoped-keys.int.test.ts and cc-pair.int.test.ts" },
  setCcPairStatus: { unprobed: "a pair change (canEditPair): dropin-contract.int.test.ts" },
  deleteCcPair: { unprobed: "a pair change (canEditPair): cc-pair.int.test.ts" },
  createFederatedConnector: { unprobed: "a federated connector holds no documents" },
  deleteFederatedConnector: { unprobed: "a federated connector holds no documents" },
  getIndexRebuildStatus: { unprobed: "the index generation's settings and progress counts: no document or pair" },
  startIndexRebuild: { unprobed: "needs an unscoped admin: search-index.int.test.ts" },
  cancelIndexRebuild: { unprobed: "needs an unscoped admin: search-index.int.test.ts" },
  createWebhook: { unprobed: "an endpoint's pairs must be the key's own: webhook-endpoints.int.test.ts" },
  listWebhooks: { unprobed: "endpoints, seen by the pairs they filter on: webhook-endpoints.int.test.ts" },
  deleteWebhook: { unprobed: "endpoints, seen by the pairs they filter on: webhook-endpoints.int.test.ts" },
  listWebhookDeliveries: { unprobed: "an endpoint's deliveries, seen with it: webhook-endpoints.int.test.ts" },
  resendWebhookDelivery: { unprobed: "an endpoint's deliveries, seen with it: webhook-endpoints.int.test.ts" },
  uploadUserFiles: { unprobed: "uploads are images, not documents: their own rule scopes them (upload-scope.int.test.ts)" },
  uploadProjectFiles: { unprobed: "uploads are images, not documents: their own rule scopes them (upload-scope.int.test.ts)" },
  deleteUserFile: { unprobed: "an upload's change, within its scope: upload-scope.int.test.ts" },
  getMetrics: { unprobed: "needs an unscoped admin: unscoped-admin.int.test.ts" },
  getApiReference: { unprobed: "a static page" },
  getApiReferenceScript: { unprobed: "a static script" },
  getOpenApiDocument: { unprobed: "the API's description" },
};

// ---- tRPC ----------------------------------------------------------------------------------------

/** The call's answer, or null for NOT_FOUND; REFUSED when the reader has no console session. */
async function found<T>(call: Promise<T>): Promise<T | null> {
  return call.catch((error: unknown) => {
    if (error instanceof TRPCError && error.code === "NOT_FOUND") return null;
    throw error;
  });
}

/** Calls `probe` with the reader's console session, or answers REFUSED when the console refused its role. */
function onConsole(probe: (caller: Caller, reader: Reader) => Promise<unknown>): (reader: Reader) => Promise<unknown> {
  return (reader) => (reader.console === null ? Promise.resolve(REFUSED) : probe(reader.console, reader));
}

async function consolePairsProbe(read: (pair: PairName) => Promise<unknown>): Promise<PairName[]> {
  const pairs: PairName[] = [];
  for (const pair of PAIR_NAMES) if ((await found(read(pair))) !== null) pairs.push(pair);
  return pairs;
}

async function consolePairDocumentsProbe(read: (ccPairId: number) => Promise<{ documents: { documentId: string }[] }>): Promise<unknown> {
  const pairs: PairName[] = [];
  const documents: string[] = [];
  for (const pair of PAIR_NAMES) {
    const page = await found(read(pairIds[pair]));
    if (page === null) continue;
    pairs.push(pair);
    documents.push(...page.documents.map((document) => document.documentId));
  }
  return { pairs, documents: matrixIds(documents) };
}

async function consoleChangeProbe(reader: Reader, change: (documentId: string) => Promise<unknown>): Promise<DocumentName[]> {
  const visible: DocumentName[] = [];
  for (const name of unchangeable(reader)) {
    const error = await change(documentId(name)).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error, name).toBeInstanceOf(TRPCError);
    if ((error as TRPCError).code === "FORBIDDEN") visible.push(name);
    else expect((error as TRPCError).code, name).toBe("NOT_FOUND");
  }
  return visible;
}

/**
 * Failed documents by visible pair (every matrix document is failed): a pair's counts are numbers about
 * the pair, as its docs_indexed is, so they count the documents the reader may not see too.
 */
const failedByPair = (seen: Seen) =>
  Object.fromEntries(seen.pairs.map((pair) => [pair, DOCUMENT_NAMES.filter((name) => DOCUMENTS[name].pair === pair).length]));
const pairDocuments = (seen: Seen) => ({ pairs: seen.pairs, documents: sorted(documentsOfPairs(seen)) });

const TRPC_PROCEDURES: Record<string, RouteCase> = {
  "session.signIn": { unprobed: "opens a session: which roles may is session.int.test.ts's" },
  "session.signOut": { unprobed: "ends a session" },
  "session.me": { unprobed: "the session's own key" },
  "connectors.indexingStatus": {
    probe: onConsole(async (caller) => {
      const ids = (await caller.connectors.indexingStatus({})).flatMap((group) =>
        group.indexingStatuses.map((row) => ("ccPairId" in row ? row.ccPairId : 0)),
      );
      return PAIR_NAMES.filter((pair) => ids.includes(pairIds[pair]));
    }),
    expected: (seen) => seen.pairs,
  },
  "connectors.get": { probe: onConsole((caller) => consolePairsProbe((pair) => caller.connectors.get({ ccPairId: pairIds[pair] }))), expected: (seen) => seen.pairs },
  "connectors.attempts": {
    probe: onConsole((caller) => consolePairsProbe((pair) => caller.connectors.attempts({ ccPairId: pairIds[pair], limit: 10 }))),
    expected: (seen) => seen.pairs,
  },
  "connectors.documents": {
    probe: onConsole((caller) => consolePairDocumentsProbe((ccPairId) => caller.connectors.documents({ ccPairId, limit: 100, cursor: null }))),
    expected: pairDocuments,
  },
  "connectors.documentStatuses": {
    probe: onConsole((caller) =>
      consolePairDocumentsProbe((ccPairId) => caller.connectors.documentStatuses({ ccPairId, status: "failed", limit: 100, cursor: null })),
    ),
    expected: pairDocuments,
  },
  "connectors.failedDocumentCounts": {
    probe: onConsole(async (caller) => {
      const counts = await caller.connectors.failedDocumentCounts({ ccPairIds: PAIR_NAMES.map((pair) => pairIds[pair]) });
      return { total: counts.total, byPair: Object.fromEntries(counts.byPair.map((row): [string, number] => [pairName(row.ccPairId) ?? String(row.ccPairId), row.failed])) };
    }),
    expected: (seen) => ({
      total: seen.documents.length,
      byPair: failedByPair(seen),
    }),
  },
  "connectors.indexingSummary": {
    probe: onConsole(async (caller) => {
      const failed: Partial<Record<PairName, number>> = {};
      for (const pair of PAIR_NAMES) {
        const summary = await found(caller.connectors.indexingSummary({ ccPairId: pairIds[pair] }));
        if (summary !== null) failed[pair] = summary.documents.failed;
      }
      return failed;
    }),
    expected: failedByPair,
  },
  "connectors.retryFailed": { unprobed: "a pair change (canEditPair): trpc/connectors.int.test.ts" },
  "connectors.create": { unprobed: "creates a pair: reads nothing" },
  "connectors.update": { unprobed: "a pair change (canEditPair): scoped-keys.int.test.ts" },
  "connectors.delete": { unprobed: "a pair change (canEditPair): scoped-keys.int.test.ts" },
  "connectors.createFederated": { unprobed: "a federated connector holds no documents" },
  "connectors.deleteFederated": { unprobed: "a federated connector holds no documents" },
  "documents.search": {
    probe: onConsole(async (caller) => {
      const search = async (ccPairIds: number[] | null) =>
        matrixIds(
          (
            await caller.documents.search({
              query: WORD,
              limit: 50,
              filters: ccPairIds === null ? null : { ccPairIds, sources: null, tags: null, docUpdatedAfter: null, docUpdatedBefore: null },
              principal: null,
            })
          ).results.map((result) => result.documentId),
        );
      const byPair = await Promise.all(PAIR_NAMES.map((pair) => search([pairIds[pair]])));
      return { plain: await search(null), byPairFilter: sorted(byPair.flat()) };
    }),
    expected: (seen) => ({ plain: sorted(seen.documents), byPairFilter: sorted(seen.documents) }),
  },
  "documents.get": {
    probe: onConsole(async (caller) => {
      const visible: DocumentName[] = [];
      for (const name of DOCUMENT_NAMES) if ((await found(caller.documents.get({ documentId: documentId(name) }))) !== null) visible.push(name);
      return sorted(visible);
    }),
    expected: (seen) => sorted(seen.documents),
  },
  "documents.delete": {
    probe: onConsole((caller, reader) => consoleChangeProbe(reader, (id) => caller.documents.delete({ documentId: id }))),
    expected: changesRefused,
  },
  "documents.retry": {
    probe: onConsole((caller, reader) => consoleChangeProbe(reader, (id) => caller.documents.retry({ documentId: id }))),
    expected: changesRefused,
  },
  "health.overview": {
    probe: onConsole(async (caller) => {
      const overview = await caller.health.overview();
      return { failed: matrixIds(overview.failedDocuments.map((document) => document.documentId)), count: overview.failedDocumentCount };
    }),
    expected: (seen) => ({ failed: sorted(seen.documents), count: seen.documents.length }),
  },
  "health.deadLetters": {
    probe: onConsole(async (caller) => matrixIds((await caller.health.deadLetters()).jobs.flatMap((job) => (job.documentId === null ? [] : [job.documentId])))),
    expected: (seen) => sorted(seen.documents),
  },
  "health.retryDeadLetter": { unprobed: "needs an unscoped admin: trpc/health-operations.int.test.ts" },
  "health.startRebuild": { unprobed: "needs an unscoped admin" },
  "health.cancelRebuild": { unprobed: "needs an unscoped admin" },
  "keys.list": { unprobed: "needs an unscoped admin: session.int.test.ts" },
  "keys.create": { unprobed: "needs an unscoped admin: session.int.test.ts" },
  "keys.revoke": { unprobed: "needs an unscoped admin: session.int.test.ts" },
  "uploads.list": { unprobed: "uploads are images, not documents: their own rule scopes them (upload-scope.int.test.ts)" },
  "uploads.delete": { unprobed: "an upload's change, within its scope: upload-scope.int.test.ts" },
  "webhooks.list": { unprobed: "endpoints, seen by the pairs they filter on: trpc/webhooks.int.test.ts" },
  "webhooks.create": { unprobed: "an endpoint's pairs must be the key's own: trpc/webhooks.int.test.ts" },
  "webhooks.delete": { unprobed: "endpoints, seen by the pairs they filter on: trpc/webhooks.int.test.ts" },
  "webhooks.deliveries": { unprobed: "an endpoint's deliveries, seen with it: trpc/webhooks.int.test.ts" },
  "webhooks.resend": { unprobed: "an endpoint's deliveries, seen with it: trpc/webhooks.int.test.ts" },
};

// ---- the matrix ----------------------------------------------------------------------------------

beforeAll(async () => {
  pairIds.own = await createTestPair(app.db, { name: "Matrix own", access: "private" });
  pairIds.otherPrivate = await createTestPair(app.db, { name: "Matrix other private", access: "private" });
  pairIds.public = await createTestPair(app.db, { name: "Matrix public", access: "public" });
  for (const name of DOCUMENT_NAMES) {
    const { pair, externalAccess } = DOCUMENTS[name];
    await ingestAndIndexOverApi(app, {
      id: documentId(name),
      ccPairId: pairIds[pair],
      text: `${WORD} text of ${name}`,
      ...(externalAccess ? { fields: { external_access: externalAccess } } : {}),
    });
  }
  // Each document's indexing job failed out of retries, waiting in the dead-letter queue (as the
  // worker fails a job: fetched, then failed).
  const { boss } = await getServices();
  await sendIndexingJobsWithoutRetries(boss, app.db, DOCUMENT_NAMES.map(documentId));
  const jobs = await boss.fetch(indexDocumentJob.name, { batchSize: 100 });
  expect(jobs).toHaveLength(DOCUMENT_NAMES.length);
  await boss.fail(indexDocumentJob.name, jobs.map((job) => job.id), { message: "boom" });
  // Failed after being indexed: still searchable, and in every list of failed documents too.
  await app.db.document.updateMany({ where: { id: { in: DOCUMENT_NAMES.map(documentId) } }, data: { indexingStatus: "failed", lastError: "boom" } });
  for (const [name, reader] of Object.entries(READERS)) {
    const key = await app.createKey(reader.role, reader.scoped ? [pairIds.own] : []);
    const console = await signedIn(key).then(
      (session) => session.caller,
      (error: unknown) => {
        if (error instanceof TRPCError && error.code === "FORBIDDEN" && !CONSOLE_ROLES.includes(reader.role)) return null;
        throw error;
      },
    );
    readers[name] = { ...reader, key, console };
  }
});

describe("one visibility rule on every read path", () => {
  it("has a line for every REST route and every tRPC procedure", () => {
    expect(sorted(Object.keys(REST_ROUTES))).toEqual(sorted(Object.keys(REST_CONTRACT)));
    expect(sorted(Object.keys(TRPC_PROCEDURES))).toEqual(sorted(Object.keys(appRouter._def.procedures)));
  });

  const everyRole = Object.values(READERS).map((reader) => reader.role);
  const cases = [
    ...Object.entries(REST_ROUTES).map(([id, route]) => {
      const { method, path, auth } = REST_CONTRACT[id as RestOperationId];
      return { name: `REST ${method} ${path}`, route, roles: auth === "public" ? everyRole : (auth as readonly ApiKeyRole[]) };
    }),
    ...Object.entries(TRPC_PROCEDURES).map(([path, route]) => ({ name: `tRPC ${path}`, route, roles: CONSOLE_ROLES })),
  ].flatMap(({ name, route, roles }) => ("probe" in route ? [{ name, route, roles }] : []));

  it.each(cases.flatMap((routeCase) => Object.keys(READERS).map((reader) => ({ ...routeCase, reader }))))(
    "$name, $reader",
    async ({ route, roles, reader: readerName }) => {
      const reader = readers[readerName]!;
      const expected = roles.includes(reader.role) ? route.expected(reader.seen, reader) : REFUSED;
      expect(await route.probe(reader)).toEqual(expected);
    },
  );

  it("a search on behalf of a user shows what that user sees, and only an unscoped admin may ask for one", async () => {
    const onBehalf = { query: WORD, limit: 50, principal: { email: "alice@example.com", group_ids: [] } };
    const answer = await rest(readers["unscoped admin"]!, "POST", "/svc-api/search", onBehalf);
    const ids = ((await answer.json()) as { results: { document_id: string }[] }).results.map((result) => result.document_id);
    expect(matrixIds(ids)).toEqual(sorted<DocumentName>(["public", "publicRestricted", "isPublicInPrivate"]));
    for (const name of ["admin scoped to own", "curator scoped to own", "unscoped curator"]) {
      const refused = await rest(readers[name]!, "POST", "/svc-api/search", onBehalf);
      expect(refused.status, name).toBe(403);
    }
    const scopedAdmin = readers["admin scoped to own"]!.console!;
    await expect(
      scopedAdmin.documents.search({ query: WORD, limit: 50, filters: null, principal: { email: "alice@example.com", groupIds: [] } }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
