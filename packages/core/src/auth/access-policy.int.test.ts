// The access rule is written twice, in JS (access-policy.ts) and in SQL (access-policy-sql.ts). This
// test generates pairs, documents and rules and checks that both forms give the same answer for
// every pair and every document, on a real PostgreSQL.
import { Prisma, type AccessType } from "@svc/db";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCcPair } from "../connectors/create-cc-pair";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";
import {
  canEditPair,
  canFindDocument,
  canViewDocument,
  canViewPair,
  type AccessRule,
  type DocumentPairLink,
  type PairAccess,
} from "./access-policy";
import { editablePairSql, findableDocumentSql, viewableDocumentSql, viewablePairSql } from "./access-policy-sql";

let database: TestDatabase;
const pairs: PairAccess[] = [];
const ACCESS_TYPES: AccessType[] = ["public", "private", "sync", "private", "public"];
const EMAILS = ["ann@example.com", "bob@example.com", "cy@example.com"];
const GROUPS = ["sales", "eng", "ops"];

beforeAll(async () => {
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

  it("agree on every document, for viewing and for search", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentArbitrary, { minLength: 1, maxLength: 8 }), fc.array(ruleArbitrary, { minLength: 1, maxLength: 4 }), async (documents, rules) => {
        const links = await storeDocuments(documents);
        for (const rule of rules) {
          const rows = await database.db.$queryRaw<{ id: string; viewable: boolean; findable: boolean }[]>`
            SELECT d.id, COALESCE(${viewableDocumentSql(rule, "d")}, false) AS viewable,
              COALESCE(${findableDocumentSql(rule, "d")}, false) AS findable
            FROM document d ORDER BY d.id`;
          const expected = documents
            .map((document, index) => {
              const id = `doc-${index}`;
              const documentLinks = links.get(id) ?? [];
              return {
                id,
                viewable: canViewDocument(rule, documentLinks),
                findable: canFindDocument(rule, { ...document, links: documentLinks }),
              };
            })
            .sort((a, b) => (a.id < b.id ? -1 : 1));
          expect(rows).toEqual(expected);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("refuses an alias that is not a plain identifier", () => {
    expect(() => viewablePairSql({ allPairs: false, pairIds: [], email: null, groupIds: [] }, "p; DROP TABLE document")).toThrow();
    expect(Prisma.sql`${viewablePairSql({ allPairs: true }, "p")}`.sql).toBe("TRUE");
  });
});
