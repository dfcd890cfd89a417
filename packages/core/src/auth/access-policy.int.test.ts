// The access rule is written twice, in JS (access-policy.ts) and in SQL (access-policy-sql.ts); search's
// prefilter in the index (@svc/search-index's filter over searchIndexAccess) and ingestion's hot-path
// scoped-write statement (findWritesOutsideScope over editablePairIds) are two more forms.
// This test generates pairs, documents and rules and checks that every form gives the same answer for
// every pair and every document, on a real PostgreSQL and a real search index.
import { Prisma, type AccessType } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildSearchFilter,
  closeSearchIndex,
  createGenerationTable,
  openSearchIndex,
  replaceDocuments,
  type ChunkRow,
  type GenerationTable,
  type SearchIndex,
} from "@svc/search-index";
import { chunkRow } from "@svc/search-index/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCcPair } from "../connectors/create-cc-pair";
import { findWritesOutsideScope } from "../documents/write-documents";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import {
  canEditDocument,
  canEditPair,
  canViewDocument,
  canViewPair,
  type AccessRule,
  type DocumentPairLink,
  editablePairIds,
  type PairAccess,
  searchAccessRule,
  searchIndexAccess,
} from "./access-policy";
import { editablePairSql, viewableDocumentOfPairSql, viewableDocumentSql, viewablePairSql } from "./access-policy-sql";

let database: TestDatabase;
let indexDir: string;
let searchIndex: SearchIndex;
const pairs: PairAccess[] = [];
const ACCESS_TYPES: AccessType[] = ["public", "private", "sync", "private", "public"];
const EMAILS = ["ann@example.com", "bob@example.com", "cy@example.com"];
const GROUPS = ["sales", "eng", "ops"];
/** The most documents one generated case holds. */
const MAX_DOCUMENTS = 8;

beforeAll(async () => {
  indexDir = await mkdtemp(path.join(tmpdir(), "svc-access-policy-index-"));
  searchIndex = await openSearchIndex({ uri: indexDir });
  database = await createTestDatabase();
  const defaultPair = await database.db.connectorCredentialPair.findUniqueOrThrow({
    where: { id: DEFAULT_CC_PAIR_ID },
    select: { accessType: true },
  });
  pairs.push({ id: DEFAULT_CC_PAIR_ID, accessType: defaultPair.accessType });
  for (const [index, accessType] of ACCESS_TYPES.entries()) {
    const { ccPairId } = await createCcPair({ db: database.db, name: `Policy pair ${index}`, source: "web", accessType });
    pairs.push({ id: ccPairId, accessType });
  }
});

afterAll(async () => {
  closeSearchIndex(searchIndex);
  await rm(indexDir, { recursive: true, force: true });
  await database.drop();
});

interface GeneratedDocument {
  isPublic: boolean | null;
  externalUserEmails: string[];
  externalUserGroupIds: string[];
  pairIndexes: number[];
}

const pairIdArbitrary = () => fc.integer({ min: 0, max: ACCESS_TYPES.length + 1 }).map((index) => pairs[index]?.id ?? 999_999);

const ruleArbitrary: fc.Arbitrary<AccessRule> = fc.oneof(
  fc.constant<AccessRule>({ allPairs: true }),
  fc.record({
    allPairs: fc.constant(false as const),
    pairIds: fc.uniqueArray(pairIdArbitrary(), { maxLength: 4 }),
    email: fc.option(fc.constantFrom(...EMAILS), { nil: null }),
    groupIds: fc.uniqueArray(fc.constantFrom(...GROUPS), { maxLength: 3 }),
  }),
);

const documentArbitrary: fc.Arbitrary<GeneratedDocument> = fc.record({
  isPublic: fc.option(fc.boolean(), { nil: null }),
  externalUserEmails: fc.uniqueArray(fc.constantFrom(...EMAILS), { maxLength: 2 }),
  externalUserGroupIds: fc.uniqueArray(fc.constantFrom(...GROUPS), { maxLength: 2 }),
  pairIndexes: fc.uniqueArray(fc.integer({ min: 0, max: ACCESS_TYPES.length }), { maxLength: 3 }),
});

/** Replaces every document with the generated ones; returns their links as the JS rule reads them. */
async function storeDocuments(documents: GeneratedDocument[]): Promise<Map<string, DocumentPairLink[]>> {
  const db = database.db;
  await db.$executeRaw`DELETE FROM document`;
  const links = new Map<string, DocumentPairLink[]>();
  await db.document.createMany({
    data: documents.map((document, index) => ({
      id: `doc-${index}`,
      semanticIdentifier: `doc-${index}`,
      source: "web",
      docUpdatedAt: new Date(),
      isPublic: document.isPublic,
      externalUserEmails: document.externalUserEmails,
      externalUserGroupIds: document.externalUserGroupIds,
    })),
  });
  const rows = documents.flatMap((document, index) =>
    document.pairIndexes.map((pairIndex) => {
      const pair = pairs[pairIndex] as PairAccess;
      const id = `doc-${index}`;
      links.set(id, [...(links.get(id) ?? []), { ccPairId: pair.id, accessType: pair.accessType }]);
      return { documentId: id, ccPairId: pair.id };
    }),
  );
  await db.documentByCcPair.createMany({ data: rows });
  return links;
}

/** The generated document as one chunk row of the search index, with the access columns it carries. */
function indexedChunk(id: string, document: GeneratedDocument): ChunkRow {
  return chunkRow(id, `text of ${id}`, {
    ccPairIds: document.pairIndexes.map((pairIndex) => pairs[pairIndex]!.id),
    isPublic: document.isPublic,
    externalUserEmails: document.externalUserEmails,
    externalUserGroupIds: document.externalUserGroupIds,
  });
}

/** The documents of the generation that pass the where-clause (all of them for none). */
async function prefilteredIds(generation: GenerationTable, where: string | null): Promise<string[]> {
  let query = generation.table.query().select(["document_id"]);
  if (where !== null) query = query.where(where);
  const rows = (await query.toArray()) as { document_id: string }[];
  return rows.map((row) => row.document_id).sort();
}

describe("the access rule in JS and in SQL", () => {
  it("agree on every pair", async () => {
    await fc.assert(
      fc.asyncProperty(ruleArbitrary, async (rule) => {
        const rows = await database.db.$queryRaw<{ id: number; editable: boolean; viewable: boolean }[]>`
          SELECT p.id, COALESCE(${editablePairSql(rule, "p")}, false) AS editable,
            COALESCE(${viewablePairSql(rule, "p")}, false) AS viewable
          FROM connector_credential_pair p ORDER BY p.id`;
        expect(rows).toEqual(
          [...pairs]
            .sort((a, b) => a.id - b.id)
            .map((pair) => ({ id: pair.id, editable: canEditPair(rule, pair.id), viewable: canViewPair(rule, pair) })),
        );
      }),
      { numRuns: 60 },
    );
  });

  it("agree on every document, and on every document as its pairs list it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentArbitrary, { minLength: 1, maxLength: 8 }), fc.array(ruleArbitrary, { minLength: 1, maxLength: 4 }), async (documents, rules) => {
        const links = await storeDocuments(documents);
        const expected = (rule: AccessRule) => (id: string) => {
          const document = documents[Number(id.slice("doc-".length))]!;
          return canViewDocument(rule, { ...document, links: links.get(id) ?? [] });
        };
        for (const rule of rules) {
          const viewable = expected(rule);
          const rows = await database.db.$queryRaw<{ id: string; viewable: boolean }[]>`
            SELECT d.id, COALESCE(${viewableDocumentSql(rule, "d")}, false) AS viewable FROM document d ORDER BY d.id`;
          expect(rows).toEqual(rows.map(({ id }) => ({ id, viewable: viewable(id) })));
          expect(rows.map(({ id }) => id)).toEqual(documents.map((_, index) => `doc-${index}`).sort());
          // A pair's lists read its documents through their link to it, with the shortcut that link allows.
          for (const pair of pairs) {
            const listed = await database.db.$queryRaw<{ id: string; viewable: boolean }[]>`
              SELECT d.id, COALESCE(${viewableDocumentOfPairSql(rule, pair, "d")}, false) AS viewable
              FROM document_by_cc_pair l JOIN document d ON d.id = l.document_id WHERE l.cc_pair_id = ${pair.id} ORDER BY d.id`;
            expect(listed).toEqual(listed.map(({ id }) => ({ id, viewable: viewable(id) })));
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("agree with ingestion's scoped-write statement on every document", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentArbitrary, { minLength: 1, maxLength: 8 }), fc.array(ruleArbitrary, { minLength: 1, maxLength: 4 }), async (documents, rules) => {
        const links = await storeDocuments(documents);
        const ids = documents.map((_, index) => `doc-${index}`);
        for (const rule of rules) {
          const refused = await findWritesOutsideScope(database.db, ids.map((id) => ({ id, write_scope: editablePairIds(rule) })));
          expect(refused).toEqual(ids.filter((id) => !canEditDocument(rule, links.get(id) ?? [])).sort());
        }
      }),
      { numRuns: 40 },
    );
  });

  it("agree with the search index's prefilter on every document", { timeout: 120_000 }, async () => {
    const generation = await createGenerationTable({ index: searchIndex, generationId: 1, textSearchConfig: "simple" });
    const everyId = Array.from({ length: MAX_DOCUMENTS }, (_, index) => `doc-${index}`);
    await fc.assert(
      fc.asyncProperty(fc.array(documentArbitrary, { minLength: 1, maxLength: MAX_DOCUMENTS }), fc.array(ruleArbitrary, { minLength: 1, maxLength: 4 }), async (documents, rules) => {
        // One batch replaces every id a run may use: the last run's rows go, this run's come.
        const chunks = documents.map((document, index) => indexedChunk(`doc-${index}`, document));
        await replaceDocuments({ generation, documentIds: everyId, chunks });
        const publicPairIds = pairs.filter((pair) => pair.accessType === "public").map((pair) => pair.id);
        for (const rule of rules) {
          const links = (document: GeneratedDocument) =>
            document.pairIndexes.map((pairIndex) => ({ ccPairId: pairs[pairIndex]!.id, accessType: pairs[pairIndex]!.accessType }));
          const expected = documents
            .map((document, index) => ({ id: `doc-${index}`, viewable: canViewDocument(rule, { ...document, links: links(document) }) }))
            .filter(({ viewable }) => viewable)
            .map(({ id }) => id)
            .sort();
          expect(await prefilteredIds(generation, buildSearchFilter(searchIndexAccess(rule, publicPairIds), null))).toEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });

  it("admits a search page through each candidate's own links, never by reading every link", async () => {
    // Search admits a page's candidates by id (search-documents.ts). Written as two EXISTS, the rule
    // let PostgreSQL hash every link of every public pair for it, a cost that grows with the corpus
    // (bench/RESULTS.md, "REST search: where svc's time went"); the link conditions must stay per document.
    const documents = Array.from({ length: 200 }, (_, index): GeneratedDocument => ({
      isPublic: null,
      externalUserEmails: [],
      externalUserGroupIds: [],
      pairIndexes: [index % ACCESS_TYPES.length],
    }));
    await storeDocuments(documents);
    const rule: AccessRule = { allPairs: false, pairIds: [pairs[2]!.id], email: null, groupIds: [] };
    const plan = await database.db.$queryRaw<{ "QUERY PLAN": string }[]>`
      EXPLAIN SELECT d.id FROM document d WHERE d.id = ANY(${["doc-1", "doc-2", "doc-3"]}::text[]) AND ${viewableDocumentSql(rule, "d")}`;
    const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
    expect(text).not.toMatch(/hashed SubPlan/i);
    expect(text).not.toMatch(/Seq Scan on document_by_cc_pair/);
  });

  it("gives a scoped key of any role its scope, and only an unscoped admin another user's view", () => {
    const scoped: AccessRule = { allPairs: false, pairIds: [7], email: null, groupIds: [] };
    for (const role of ["admin", "curator"]) {
      expect(searchAccessRule({ role, scopeCcPairIds: [7] }, null)).toEqual(scoped);
      expect(searchAccessRule({ role, scopeCcPairIds: null }, null)).toEqual({ allPairs: true });
    }
    const ann = { email: "ann@example.com", groupIds: ["eng"] };
    expect(searchAccessRule({ role: "admin", scopeCcPairIds: null }, ann)).toEqual({ allPairs: false, pairIds: [], email: ann.email, groupIds: ann.groupIds });
    for (const subject of [
      { role: "admin", scopeCcPairIds: [7] },
      { role: "curator", scopeCcPairIds: null },
      { role: "curator", scopeCcPairIds: [7] },
    ]) {
      expect(() => searchAccessRule(subject, ann)).toThrow(/without scope/);
    }
  });

  it("refuses an alias that is not a plain identifier", () => {
    expect(() => viewablePairSql({ allPairs: false, pairIds: [], email: null, groupIds: [] }, "p; DROP TABLE document")).toThrow();
    expect(Prisma.sql`${viewablePairSql({ allPairs: true }, "p")}`.sql).toBe("TRUE");
  });
});
