import { createTestPair } from "@svc/core/testing";
import type { Camel, ConnectorIndexingStatusLite, ConnectorSort } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { useTestApp } from "../app";
import { insertIndexAttempts, setPairStatus } from "../connectors";
import { ingestAndIndexOverApi } from "../factories";
import { expectTrpcError, useConsoleFixture, type Caller } from "./console";

const app = useTestApp();

const fixture = useConsoleFixture(app);

function rows(groups: Awaited<ReturnType<Caller["connectors"]["indexingStatus"]>>): Camel<ConnectorIndexingStatusLite>[] {
  return groups.flatMap((group) => group.indexingStatuses).filter((row): row is Camel<ConnectorIndexingStatusLite> => "ccPairId" in row);
}

describe("connectors.indexingStatus", () => {
  it("is the REST listing: an admin sees every pair as editable; a scoped curator its own (editable) and public ones", async () => {
    const all = rows(await fixture.admin.connectors.indexingStatus({}));
    expect(all.map((row) => [row.ccPairId, row.isEditable]).sort()).toEqual(
      [fixture.ownPair, fixture.otherPublicPair, fixture.otherPrivatePair].map((id) => [id, true]).sort(),
    );
    const scoped = rows(await fixture.scopedCurator.connectors.indexingStatus({}));
    expect(scoped.map((row) => [row.ccPairId, row.isEditable]).sort()).toEqual(
      [
        [fixture.ownPair, true],
        [fixture.otherPublicPair, false],
      ].sort(),
    );
  });

  it("applies the request's filters and rejects bad ones", async () => {
    const filtered = rows(await fixture.admin.connectors.indexingStatus({ nameFilter: "handbook", accessTypeFilters: ["public"] }));
    expect(filtered.map((row) => row.ccPairId)).toEqual([fixture.otherPublicPair]);
    await expectTrpcError(fixture.admin.connectors.indexingStatus({ sourceToPage: { web: 0 } }), "BAD_REQUEST");
  });

  it("orders each source's rows by the console's sort before paging, and the sources by `source`", async () => {
    // Twelve GitHub pairs (two pages) and one Zendesk pair, all named "sorted …" to keep the others out.
    const github: number[] = [];
    for (const [index, letter] of [..."LKJIHGFEDCBA"].entries()) {
      const id = await createTestPair(app.db, { name: `sorted ${letter}`, source: "github" });
      await app.db.connectorCredentialPair.update({ where: { id }, data: { docsIndexed: index * 10 } });
      github.push(id);
    }
    const zendesk = await createTestPair(app.db, { name: "sorted zendesk", source: "zendesk" });
    const listed = async (sort: ConnectorSort | null, page = 1) =>
      (await fixture.admin.connectors.indexingStatus({ nameFilter: "sorted", sourceToPage: { github: page }, sort })).map((group) => [
        group.source,
        rows(group ? [group] : []).map((row) => row.name),
      ]);

    const byName = await listed({ column: "name", direction: "asc" });
    expect(byName).toEqual([
      ["github", [..."ABCDEFGHIJ"].map((letter) => `sorted ${letter}`)],
      ["zendesk", ["sorted zendesk"]],
    ]);
    // Page 2 continues page 1: the order is applied before paging.
    expect((await listed({ column: "name", direction: "asc" }, 2))[0]).toEqual(["github", ["sorted K", "sorted L"]]);
    expect((await listed({ column: "docs_indexed", direction: "desc" }))[0]?.[1]).toEqual([..."ABCDEFGHIJ"].map((letter) => `sorted ${letter}`));
    expect((await listed({ column: "source", direction: "desc" })).map(([source]) => source)).toEqual(["zendesk", "github"]);
    // Without a sort, the contract's order: newest pair first.
    expect((await listed(null))[0]?.[1]?.[0]).toBe("sorted A");

    // Last success: the pair that succeeded latest first, the ones that never did last.
    await insertIndexAttempts(app.db, github[0] ?? 0, [{ status: "success", finishedAt: new Date("2026-01-01T00:00:00Z") }]);
    await insertIndexAttempts(app.db, github[1] ?? 0, [{ status: "success", finishedAt: new Date("2026-02-01T00:00:00Z") }]);
    await insertIndexAttempts(app.db, zendesk, [{ status: "failed" }]);
    const bySuccess = await listed({ column: "last_success", direction: "desc" });
    expect(bySuccess[0]?.[1]?.slice(0, 3)).toEqual(["sorted K", "sorted L", "sorted A"]);
    expect((await listed({ column: "last_success", direction: "asc" }))[0]?.[1]?.slice(0, 3)).toEqual(["sorted L", "sorted K", "sorted A"]);

    // Status and last attempt: by their names; pairs without an attempt last either way.
    await setPairStatus(app.db, github[2] ?? 0, "ACTIVE");
    await insertIndexAttempts(app.db, github[2] ?? 0, [{ status: "failed" }]);
    expect((await listed({ column: "status", direction: "asc" }))[0]?.[1]?.[0]).toBe("sorted J");
    expect((await listed({ column: "status", direction: "desc" }, 2))[0]?.[1]).toEqual(["sorted L", "sorted J"]);
    expect((await listed({ column: "last_status", direction: "asc" }))[0]?.[1]?.slice(0, 4)).toEqual(["sorted J", "sorted K", "sorted L", "sorted A"]);
    expect((await listed({ column: "last_status", direction: "desc" }))[0]?.[1]?.slice(0, 4)).toEqual(["sorted K", "sorted L", "sorted J", "sorted A"]);
  });
});

describe("connectors.get, attempts and documents", () => {
  it("show a pair, its attempts newest first and its documents page by page", async () => {
    const link = "https://wiki.example.com/onboarding";
    await ingestAndIndexOverApi(app, ...["a-1", "a-2", "a-3"].map((id) => ({ id, ccPairId: fixture.ownPair, link })));
    expect(await fixture.admin.connectors.get({ ccPairId: fixture.ownPair })).toMatchObject({ id: fixture.ownPair, name: "Team A wiki", status: "ACTIVE", docsIndexed: 3 });

    const attempts = await fixture.scopedCurator.connectors.attempts({ ccPairId: fixture.ownPair });
    expect(attempts).toEqual([
      {
        id: expect.any(Number) as unknown,
        status: "success",
        docsIndexed: 3,
        docsFailed: 0,
        errorMessage: null,
        createdAt: expect.any(Date) as unknown,
        startedAt: expect.any(Date) as unknown,
        finishedAt: expect.any(Date) as unknown,
        rebuild: false,
      },
    ]);

    const first = await fixture.scopedCurator.connectors.documents({ ccPairId: fixture.ownPair, limit: 2 });
    expect(first.documents.map((document) => document.documentId)).toEqual(["a-1", "a-2"]);
    const second = await fixture.scopedCurator.connectors.documents({ ccPairId: fixture.ownPair, limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({ documents: [{ documentId: "a-3", semanticId: "Doc a-3", link: "https://wiki.example.com/onboarding" }], nextCursor: null });
    await expectTrpcError(fixture.admin.connectors.documents({ ccPairId: fixture.ownPair, cursor: "not-a-cursor" }), "BAD_REQUEST");
  });

  it("hide pairs outside a scoped key's view as NOT_FOUND", async () => {
    await expectTrpcError(fixture.scopedCurator.connectors.get({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.connectors.attempts({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.connectors.documents({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.admin.connectors.get({ ccPairId: 999_999 }), "NOT_FOUND");
    expect(await fixture.scopedCurator.connectors.get({ ccPairId: fixture.otherPublicPair })).toMatchObject({ id: fixture.otherPublicPair });
  });

  it("give a pair's documents by status, its summary, failed counts and retry-all within the key's scope", async () => {
    const page = await fixture.scopedCurator.connectors.documentStatuses({ ccPairId: fixture.ownPair, status: "indexed", limit: 2 });
    expect(page.documents.map((document) => [document.documentId, document.indexingStatus, document.lastError])).toEqual([
      ["a-1", "indexed", null],
      ["a-2", "indexed", null],
    ]);
    expect((await fixture.scopedCurator.connectors.documentStatuses({ ccPairId: fixture.ownPair, status: "failed" })).documents).toEqual([]);
    expect(await fixture.scopedCurator.connectors.indexingSummary({ ccPairId: fixture.ownPair })).toEqual({
      inRepeatedErrorState: false,
      documents: { indexed: 3, queued: 0, failed: 0 },
    });
    expect(await fixture.scopedCurator.connectors.failedDocumentCounts({ ccPairIds: [fixture.ownPair] })).toEqual({ total: 0, byPair: [] });
    expect(await fixture.scopedCurator.connectors.retryFailed({ ccPairId: fixture.ownPair })).toEqual({ retried: 0, skipped: 0 });
    await expectTrpcError(fixture.scopedCurator.connectors.documentStatuses({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.connectors.indexingSummary({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.connectors.retryFailed({ ccPairId: fixture.otherPrivatePair }), "NOT_FOUND");
    await expectTrpcError(fixture.scopedCurator.connectors.retryFailed({ ccPairId: fixture.otherPublicPair }), "FORBIDDEN");
    await expectTrpcError(fixture.admin.connectors.documentStatuses({ ccPairId: fixture.ownPair, status: "broken" as "failed" }), "BAD_REQUEST");
  });
});

describe("connectors.documentStatuses: search and order", () => {
  it("finds a pair's documents by name or id, in any column's order, page after page, within the key's view", async () => {
    const pair = await createTestPair(app.db, { name: "Searchable", source: "web" });
    // Names out of id order; "Beacon" twice, so the id breaks the tie.
    const titles: [id: string, title: string][] = [
      ["s-1", "Lamp room"],
      ["s-2", "Beacon log"],
      ["s-3", "anchor chart"],
      ["s-4", "Beacon manual"],
      ["s-5", "Fog horn"],
    ];
    await ingestAndIndexOverApi(app, ...titles.map(([id, title]) => ({ id, title, ccPairId: pair })));
    const ids = async (input: Omit<Parameters<Caller["connectors"]["documentStatuses"]>[0], "ccPairId">) => {
      const page = await fixture.admin.connectors.documentStatuses({ ccPairId: pair, ...input });
      return { ids: page.documents.map((document) => document.documentId), nextCursor: page.nextCursor };
    };

    // Name or id, case aside; a LIKE pattern is plain text.
    expect((await ids({ query: "BEACON" })).ids).toEqual(["s-2", "s-4"]);
    expect((await ids({ query: "s-3" })).ids).toEqual(["s-3"]);
    expect((await ids({ query: "%" })).ids).toEqual([]);
    expect((await ids({ query: "  " })).ids).toEqual(["s-1", "s-2", "s-3", "s-4", "s-5"]);

    // Every order pages through the whole list: each page continues the last.
    const walk = async (sort: { column: "name" | "id" | "updated" | "tries" | "status"; direction: "asc" | "desc" }) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { ids: string[]; nextCursor: string | null } = await ids({ sort, limit: 2, cursor });
        seen.push(...page.ids);
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await walk({ column: "name", direction: "asc" })).toEqual(["s-3", "s-2", "s-4", "s-5", "s-1"]);
    expect(await walk({ column: "name", direction: "desc" })).toEqual(["s-1", "s-5", "s-4", "s-2", "s-3"]);
    expect(await walk({ column: "id", direction: "desc" })).toEqual(["s-5", "s-4", "s-3", "s-2", "s-1"]);
    // Ingested one by one: updated_at (to the microsecond) follows the ids.
    expect(await walk({ column: "updated", direction: "desc" })).toEqual(["s-5", "s-4", "s-3", "s-2", "s-1"]);
    expect(await walk({ column: "tries", direction: "asc" })).toEqual(["s-1", "s-2", "s-3", "s-4", "s-5"]);
    expect((await ids({ query: "beacon", sort: { column: "name", direction: "desc" } })).ids).toEqual(["s-4", "s-2"]);

    // The one visibility rule: a scoped curator searches its own pair, never another's private one.
    await ingestAndIndexOverApi(app, { id: "own-beacon", title: "Beacon of team A", ccPairId: fixture.ownPair });
    const own = await fixture.scopedCurator.connectors.documentStatuses({ ccPairId: fixture.ownPair, query: "beacon", sort: { column: "name", direction: "asc" } });
    expect(own.documents.map((document) => document.documentId)).toEqual(["own-beacon"]);
    await expectTrpcError(fixture.scopedCurator.connectors.documentStatuses({ ccPairId: fixture.otherPrivatePair, query: "beacon" }), "NOT_FOUND");

    // Bounded: a query over 200 characters, an unknown column, and a cursor of another order are refused.
    await expectTrpcError(fixture.admin.connectors.documentStatuses({ ccPairId: pair, query: "x".repeat(201) }), "BAD_REQUEST");
    await expectTrpcError(
      fixture.admin.connectors.documentStatuses({ ccPairId: pair, sort: { column: "text" as "name", direction: "asc" } }),
      "BAD_REQUEST",
    );
    const byId = await ids({ limit: 2 });
    await expectTrpcError(
      fixture.admin.connectors.documentStatuses({ ccPairId: pair, sort: { column: "name", direction: "asc" }, cursor: byId.nextCursor }),
      "BAD_REQUEST",
    );
  });
});

describe("connector changes", () => {
  it("create, rename, pause, resume and delete as an admin", async () => {
    const created = await fixture.admin.connectors.create({ name: "Release notes", source: "web", accessType: "public" });
    expect(created).toEqual({ ccPairId: expect.any(Number) as unknown, connectorId: expect.any(Number) as unknown, credentialId: expect.any(Number) as unknown });
    const id = created.ccPairId;
    expect(await fixture.admin.connectors.update({ ccPairId: id, name: "Release notes (2026)" })).toMatchObject({ name: "Release notes (2026)", status: "SCHEDULED" });
    expect(await fixture.admin.connectors.update({ ccPairId: id, status: "PAUSED" })).toMatchObject({ status: "PAUSED" });
    expect(await fixture.admin.connectors.update({ ccPairId: id, status: "ACTIVE" })).toMatchObject({ status: "ACTIVE" });
    expect(await fixture.admin.connectors.delete({ ccPairId: id })).toEqual({ ok: true });
    expect(await fixture.admin.connectors.get({ ccPairId: id })).toMatchObject({ status: "DELETING" });
    await expectTrpcError(fixture.admin.connectors.update({ ccPairId: id, name: "again" }), "CONFLICT");
    await expectTrpcError(fixture.admin.connectors.update({ ccPairId: 1, name: "default" }), "BAD_REQUEST");
    await expectTrpcError(fixture.admin.connectors.create({ name: "x", source: "not-a-source" as "web", accessType: "public" }), "BAD_REQUEST");
  });

  it("let a curator change no pair (REST's PATCH is admin only), nor create or delete one", async () => {
    await expectTrpcError(fixture.scopedCurator.connectors.update({ ccPairId: fixture.ownPair, status: "PAUSED" }), "FORBIDDEN");
    expect((await fixture.admin.connectors.get({ ccPairId: fixture.ownPair })).status).not.toBe("PAUSED");
    await expectTrpcError(fixture.scopedCurator.connectors.create({ name: "x", source: "web", accessType: "public" }), "FORBIDDEN");
    await expectTrpcError(fixture.scopedCurator.connectors.delete({ ccPairId: fixture.ownPair }), "FORBIDDEN");
    await expectTrpcError(fixture.scopedCurator.connectors.createFederated({ source: "federated_slack" }), "FORBIDDEN");
    await expectTrpcError(fixture.scopedCurator.connectors.deleteFederated({ id: 1 }), "FORBIDDEN");
    expect(await fixture.admin.connectors.get({ ccPairId: fixture.otherPublicPair })).toMatchObject({ name: "Public handbook" });
  });

  it("add and remove federated connectors (admin)", async () => {
    const { id } = await fixture.admin.connectors.createFederated({ source: "federated_slack", name: "Company Slack" });
    const slack = (await fixture.admin.connectors.indexingStatus({})).find((group) => group.source === "slack");
    expect(slack?.indexingStatuses).toContainEqual({ id, source: "federated_slack", name: "Company Slack" });
    expect(await fixture.admin.connectors.deleteFederated({ id })).toEqual({ id });
    await expectTrpcError(fixture.admin.connectors.deleteFederated({ id }), "NOT_FOUND");
  });
});
