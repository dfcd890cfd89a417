// Writes that cannot go back in time (docs/decisions.md "Conditional writes"): `if_version` and
// `if_newer` on the single and the bulk ingestion, under concurrent writers; without a condition the
// answer and the behaviour are the original's.
import { createTestPair } from "@svc/core/testing";
import { describe, expect, it } from "vitest";
import { ingestionBody, useTestApp } from "./app";

const app = useTestApp();

const ingestBatch = (documents: unknown[]) => app.request("POST", "/api/svc-api/ingestion/batch", { body: { documents } });

async function stored(id: string) {
  return app.db.document.findUniqueOrThrow({
    where: { id },
    select: { version: true, docUpdatedAt: true, semanticIdentifier: true, pairs: { select: { ccPairId: true } } },
  });
}

async function jobVersions(documentId: string): Promise<number[]> {
  const rows = await app.db.$queryRaw<{ version: number }[]>`
    SELECT (data->>'version')::int AS version FROM pgboss.job
    WHERE name = 'index-document' AND data->>'documentId' = ${documentId} ORDER BY (data->>'version')::int`;
  return rows.map((row) => row.version);
}

const at = (iso: string) => ({ doc_updated_at: iso });

describe("without a condition", () => {
  it("answers exactly {document_id, already_existed} and the last write wins, whatever its doc_updated_at", async () => {
    const first = await app.ingest(ingestionBody({ id: "plain", semantic_identifier: "new", ...at("2026-06-01T00:00:00Z") }));
    expect(await first.json()).toEqual({ document_id: "plain", already_existed: false });
    const older = await app.ingest(ingestionBody({ id: "plain", semantic_identifier: "old", ...at("2020-01-01T00:00:00Z") }));
    expect(await older.json()).toEqual({ document_id: "plain", already_existed: true });
    expect(await stored("plain")).toMatchObject({ version: 2, semanticIdentifier: "old" });
  });
});

describe("if_newer", () => {
  it("ignores a write older than the stored document: applied false, nothing changed, no job", async () => {
    await app.ingest(ingestionBody({ id: "newer-1", semantic_identifier: "v-2026", ...at("2026-06-01T00:00:00Z") }));
    const pair = await createTestPair(app.db, { name: "Newer pair" });
    const older = await app.ingest(
      ingestionBody({ id: "newer-1", semantic_identifier: "v-2020", ...at("2020-01-01T00:00:00Z") }, { if_newer: true, cc_pair_id: pair }),
    );
    expect(older.status).toBe(200);
    expect(await older.json()).toEqual({ document_id: "newer-1", already_existed: true, applied: false });
    const document = await stored("newer-1");
    expect(document).toMatchObject({ version: 1, semanticIdentifier: "v-2026" });
    expect(document.pairs.map((link) => link.ccPairId)).toEqual([1]);
    expect(await jobVersions("newer-1")).toEqual([1]);
  });

  it("applies a write as new as or newer than the stored one, and a first write", async () => {
    const created = await app.ingest(ingestionBody({ id: "newer-2", ...at("2026-01-01T00:00:00Z") }, { if_newer: true }));
    expect(await created.json()).toEqual({ document_id: "newer-2", already_existed: false, applied: true });
    const same = await app.ingest(ingestionBody({ id: "newer-2", ...at("2026-01-01T00:00:00Z") }, { if_newer: true }));
    expect(await same.json()).toEqual({ document_id: "newer-2", already_existed: true, applied: true });
    const newer = await app.ingest(
      ingestionBody({ id: "newer-2", semantic_identifier: "later", ...at("2026-01-02T00:00:00+01:00") }, { if_newer: true }),
    );
    expect(await newer.json()).toEqual({ document_id: "newer-2", already_existed: true, applied: true });
    expect(await stored("newer-2")).toMatchObject({ version: 3, semanticIdentifier: "later" });
    expect(await jobVersions("newer-2")).toEqual([1, 2, 3]);
  });

  it("keeps the newer of two concurrent writers, in either order, round after round", async () => {
    for (let round = 0; round < 20; round += 1) {
      const id = `race-newer-${round}`;
      const newer = ingestionBody({ id, semantic_identifier: "newer", ...at(`2026-01-01T00:00:0${round % 10}.002Z`) }, { if_newer: true });
      const older = ingestionBody({ id, semantic_identifier: "older", ...at(`2026-01-01T00:00:0${round % 10}.001Z`) }, { if_newer: true });
      // Alternate who is sent first; the single call and the bulk call race each other too.
      const writers = round % 2 === 0 ? [newer, older] : [older, newer];
      const answers = await Promise.all(
        writers.map((body, index) => (index === round % 3 ? ingestBatch([body]) : app.ingest(body)).then((response) => response.status)),
      );
      expect(answers).toEqual([200, 200]);
      expect((await stored(id)).semanticIdentifier).toBe("newer");
    }
  });
});

describe("if_version", () => {
  it("applies a write at the current version and answers 409 with the current version once it moved", async () => {
    await app.ingest(ingestionBody({ id: "version-1" }));
    const applied = await app.ingest(ingestionBody({ id: "version-1", semantic_identifier: "second" }, { if_version: 1 }));
    expect(applied.status).toBe(200);
    expect(await applied.json()).toEqual({ document_id: "version-1", already_existed: true, applied: true });

    const stale = await app.ingest(ingestionBody({ id: "version-1", semantic_identifier: "stale" }, { if_version: 1 }));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ detail: "Document version-1 is at version 2, not 1.", current_version: 2 });
    expect(await stored("version-1")).toMatchObject({ version: 2, semanticIdentifier: "second" });
    expect(await jobVersions("version-1")).toEqual([1, 2]);
  });

  it("creates only with 0, and answers 409 with current_version null for a version of no document", async () => {
    const missing = await app.ingest(ingestionBody({ id: "version-2" }, { if_version: 3 }));
    expect(missing.status).toBe(409);
    expect(await missing.json()).toEqual({ detail: "Document version-2 does not exist, so it is not at version 3.", current_version: null });
    expect(await app.db.document.count({ where: { id: "version-2" } })).toBe(0);

    const created = await app.ingest(ingestionBody({ id: "version-2" }, { if_version: 0 }));
    expect(await created.json()).toEqual({ document_id: "version-2", already_existed: false, applied: true });
    const again = await app.ingest(ingestionBody({ id: "version-2" }, { if_version: 0 }));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ current_version: 1 });
  });

  it("lets exactly one of two concurrent writers of the version they both read win", async () => {
    for (let round = 0; round < 20; round += 1) {
      const id = `race-version-${round}`;
      await app.ingest(ingestionBody({ id }));
      const writers = ["a", "b"].map((name, index) =>
        (index === round % 3 ? ingestBatch([ingestionBody({ id, semantic_identifier: name }, { if_version: 1 })]) : app.ingest(ingestionBody({ id, semantic_identifier: name }, { if_version: 1 }))),
      );
      const answers = await Promise.all(writers.map(async (response) => (await response).json() as Promise<Record<string, unknown>>));
      const flattened = answers.map((answer) => ((answer.results as unknown[] | undefined)?.[0] ?? answer) as Record<string, unknown>);
      const winners = flattened.filter((answer) => answer.applied === true);
      const losers = flattened.filter((answer) => answer.current_version === 2 || (answer.error as { current_version?: number } | undefined)?.current_version === 2);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      const document = await stored(id);
      expect(document.version).toBe(2);
      expect(document.semanticIdentifier).toBe(["a", "b"][flattened.indexOf(winners[0] as Record<string, unknown>)]);
    }
  });

  it("refuses a negative or non-integer version with a 422", async () => {
    for (const ifVersion of [-1, 1.5, "x"]) {
      const response = await app.ingest(ingestionBody({ id: "version-bad" }, { if_version: ifVersion }));
      expect(response.status).toBe(422);
      expect(((await response.json()) as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "if_version"]);
    }
  });
});

describe("conditions in a batch", () => {
  it("answers each item on its own: applied, ignored, or a 409 item with the current version", async () => {
    await app.ingest(ingestionBody({ id: "batch-cond-old", ...at("2026-06-01T00:00:00Z") }));
    await app.ingest(ingestionBody({ id: "batch-cond-version" }));
    const response = await ingestBatch([
      ingestionBody({ id: "batch-cond-old", ...at("2020-01-01T00:00:00Z") }, { if_newer: true }),
      ingestionBody({ id: "batch-cond-version" }, { if_version: 7 }),
      ingestionBody({ id: "batch-cond-new" }, { if_version: 0 }),
      ingestionBody({ id: "batch-cond-plain" }),
    ]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      results: [
        { document_id: "batch-cond-old", already_existed: true, applied: false },
        { error: { status: 409, detail: "Document batch-cond-version is at version 1, not 7.", current_version: 1 } },
        { document_id: "batch-cond-new", already_existed: false, applied: true },
        { document_id: "batch-cond-plain", already_existed: false },
      ],
    });
    expect(await jobVersions("batch-cond-old")).toEqual([1]);
    expect(await jobVersions("batch-cond-version")).toEqual([1]);
    expect(await jobVersions("batch-cond-new")).toEqual([1]);
  });

  it("checks a repeated id's later item against the earlier item of the same batch", async () => {
    const response = await ingestBatch([
      ingestionBody({ id: "batch-repeat", semantic_identifier: "new", ...at("2026-06-01T00:00:00Z") }, { if_newer: true }),
      ingestionBody({ id: "batch-repeat", semantic_identifier: "old", ...at("2020-01-01T00:00:00Z") }, { if_newer: true }),
    ]);
    expect(((await response.json()) as { results: unknown[] }).results).toEqual([
      { document_id: "batch-repeat", already_existed: false, applied: true },
      { document_id: "batch-repeat", already_existed: true, applied: false },
    ]);
    expect((await stored("batch-repeat")).semanticIdentifier).toBe("new");
  });
});
