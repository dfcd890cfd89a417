import { createTestPair, indexTestDocuments } from "@svc/core/testing";
import { describe, expect, it } from "vitest";
import { ERROR_DETAIL, ingestionBody, useTestApp } from "./app";
import { uploadTestImage } from "./factories";

const app = useTestApp({ SVC_MAX_BODY_BYTES: String(256 * 1024) });

async function storedDocument(id: string) {
  return app.db.document.findUnique({
    where: { id },
    include: { sections: { orderBy: { position: "asc" } }, pairs: { orderBy: { ccPairId: "asc" } } },
  });
}

async function queuedJobs(documentId: string) {
  return app.db.$queryRaw<{ data: { documentId: string; version: number } }[]>`
    SELECT data FROM pgboss.job WHERE name = 'index-document' AND data->>'documentId' = ${documentId}
    ORDER BY created_on`;
}

describe("POST /api/svc-api/ingestion: accepting documents", () => {
  it("creates a document, then updates it: already_existed false, then true", async () => {
    const body = ingestionBody({ id: "doc-create-update" });
    const first = await app.ingest(body);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ document_id: "doc-create-update", already_existed: false });

    const second = await app.ingest(body);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ document_id: "doc-create-update", already_existed: true });
  });

  it("commits the document and its indexing job together, one job per upsert with the version", async () => {
    await app.ingest(ingestionBody({ id: "doc-with-job" }));
    await app.ingest(ingestionBody({ id: "doc-with-job" }));
    const document = await storedDocument("doc-with-job");
    expect(document?.version).toBe(2);
    expect(document?.indexingStatus === "queued" || document?.indexingStatus === "indexed").toBe(true);
    expect((await queuedJobs("doc-with-job")).map((job) => job.data.version)).toEqual([1, 2]);
  });

  it("gives exactly one of 50 concurrent first writes of one id already_existed=false", async () => {
    const body = ingestionBody({ id: "doc-concurrent" });
    const responses = await Promise.all(Array.from({ length: 50 }, () => app.ingest(body)));
    const results = (await Promise.all(responses.map((response) => response.json()))) as { already_existed: boolean }[];
    expect(responses.map((response) => response.status).filter((status) => status !== 200)).toEqual([]);
    expect(results.filter((result) => !result.already_existed)).toHaveLength(1);
    expect((await storedDocument("doc-concurrent"))?.version).toBe(50);
  });
});

describe("document ids", () => {
  it("stores and returns a given id verbatim", async () => {
    const id = "Reports/2026 Q3?x=1&y=%20 ünïcode";
    const response = await app.ingest(ingestionBody({ id }));
    expect(await response.json()).toEqual({ document_id: id, already_existed: false });
    expect(await storedDocument(id)).not.toBeNull();
  });

  it("infers the id from the semantic identifier when it is omitted, null or empty", async () => {
    for (const id of [undefined, null, ""]) {
      const response = await app.ingest(ingestionBody({ id, semantic_identifier: "Q3 plan: 50%+/more" }));
      expect(((await response.json()) as { document_id: string }).document_id).toBe("ingestion_api_Q3_plan%3A_50%25%2B%2Fmore");
    }
  });

  it("refuses an id longer than 512 characters with a 422", async () => {
    const response = await app.ingest(ingestionBody({ id: "x".repeat(513) }));
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[]; type: string }[] };
    expect(body.detail[0]).toMatchObject({ loc: ["body", "document", "id"], type: "string_too_long" });
    expect((await app.ingest(ingestionBody({ id: "y".repeat(512) }))).status).toBe(200);
  });
});

describe("connector-credential pairs", () => {
  it("attaches documents sent without cc_pair_id, with null or with 0 to the default pair", async () => {
    for (const [id, extra] of [["pair-omitted", {}], ["pair-null", { cc_pair_id: null }], ["pair-zero", { cc_pair_id: 0 }]] as const) {
      expect((await app.ingest(ingestionBody({ id }, extra))).status).toBe(200);
      expect((await storedDocument(id))?.pairs.map((link) => link.ccPairId)).toEqual([1]);
    }
    const defaultPair = await app.db.connectorCredentialPair.findUnique({ where: { id: 1 }, include: { connector: true } });
    expect(defaultPair).toMatchObject({ name: "DefaultCCPair", accessType: "public", status: "ACTIVE" });
    expect(defaultPair?.connector.source).toBe("ingestion_api");
  });

  it("answers 400 with the original's message for an unknown cc_pair_id, storing nothing", async () => {
    const response = await app.ingest(ingestionBody({ id: "pair-unknown" }, { cc_pair_id: 9999 }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: "Connector-Credential Pair specified does not exist" });
    expect(await storedDocument("pair-unknown")).toBeNull();
  });

  it("answers 400 for a cc_pair_id beyond any pair id, and for a pair being deleted", async () => {
    const huge = await app.ingest(ingestionBody({ id: "pair-huge" }, { cc_pair_id: 2147483647 }));
    expect(huge.status).toBe(400);
    expect(await huge.json()).toEqual({ detail: "Connector-Credential Pair specified does not exist" });
    // Beyond PostgreSQL int4 the schema says the bound (docs/decisions.md, "Every error is JSON").
    const beyond = await app.ingest(ingestionBody({ id: "pair-huge" }, { cc_pair_id: 2 ** 40 }));
    expect(beyond.status).toBe(422);
    expect(await beyond.json()).toEqual({ detail: [expect.objectContaining({ type: "less_than_equal", loc: ["body", "cc_pair_id"] })] });
    expect(await storedDocument("pair-huge")).toBeNull();
    const pair = await createTestPair(app.db, { name: "Going away" });
    await app.db.connectorCredentialPair.update({ where: { id: pair }, data: { status: "DELETING" } });
    expect((await app.ingest(ingestionBody({ id: "pair-deleting" }, { cc_pair_id: pair }))).status).toBe(400);
    expect(await storedDocument("pair-deleting")).toBeNull();
  });

  it("links a document ingested into a second pair to both pairs", async () => {
    const first = await createTestPair(app.db, { name: "Wiki" });
    const second = await createTestPair(app.db, { name: "Drive", source: "google_drive", access: "private" });
    await app.ingest(ingestionBody({ id: "two-pairs" }, { cc_pair_id: first }));
    const response = await app.ingest(ingestionBody({ id: "two-pairs" }, { cc_pair_id: String(second) }));
    expect(await response.json()).toEqual({ document_id: "two-pairs", already_existed: true });
    expect((await storedDocument("two-pairs"))?.pairs.map((link) => link.ccPairId)).toEqual([first, second]);
  });

  it("lets a scoped key ingest only into its pairs", async () => {
    const allowed = await createTestPair(app.db, { name: "Scoped", source: "file", access: "private" });
    const other = await createTestPair(app.db, { name: "Other", source: "file", access: "private" });
    const key = await app.createKey("curator", [allowed]);
    expect((await app.ingest(ingestionBody({ id: "scoped-ok" }, { cc_pair_id: allowed }), key)).status).toBe(200);
    const refused = await app.ingest(ingestionBody({ id: "scoped-no" }, { cc_pair_id: other }), key);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(ERROR_DETAIL);
    expect((await app.ingest(ingestionBody({ id: "scoped-default" }), key)).status).toBe(403);
    expect(await storedDocument("scoped-no")).toBeNull();
  });
});

describe("stored fields", () => {
  it("stores source as given, ingestion_api when omitted, and always from_ingestion_api=true", async () => {
    await app.ingest(ingestionBody({ id: "src-given", source: "confluence", from_ingestion_api: false }));
    await app.ingest(ingestionBody({ id: "src-omitted" }));
    expect(await storedDocument("src-given")).toMatchObject({ source: "confluence", fromIngestionApi: true });
    expect(await storedDocument("src-omitted")).toMatchObject({ source: "ingestion_api", fromIngestionApi: true });
  });

  it("normalises doc_updated_at to UTC, takes a time without offset as UTC, and defaults to now", async () => {
    await app.ingest(ingestionBody({ id: "time-offset", doc_updated_at: "2026-03-01T10:00:00+02:00" }));
    await app.ingest(ingestionBody({ id: "time-naive", doc_updated_at: "2026-03-01T10:00:00" }));
    const before = Date.now();
    await app.ingest(ingestionBody({ id: "time-omitted" }));
    expect((await storedDocument("time-offset"))?.docUpdatedAt.toISOString()).toBe("2026-03-01T08:00:00.000Z");
    expect((await storedDocument("time-naive"))?.docUpdatedAt.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    const defaulted = (await storedDocument("time-omitted"))?.docUpdatedAt.getTime() ?? 0;
    expect(defaulted).toBeGreaterThanOrEqual(before - 1000);
    expect(defaulted).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("keeps metadata of strings and string arrays as the document's tags, coerces other JSON values, refuses unstorable text", async () => {
    const metadata = { team: "platform", tags: ["howto", "onboarding"] };
    await app.ingest(ingestionBody({ id: "meta-ok", metadata }));
    expect((await storedDocument("meta-ok"))?.metadata).toEqual(metadata);
    await app.ingest(ingestionBody({ id: "meta-coerced", metadata: { count: 3, tags: [1, true] } }));
    expect((await storedDocument("meta-coerced"))?.metadata).toEqual({ count: "3", tags: ["1", "True"] });
    const refused = await app.ingest(ingestionBody({ id: "meta-bad", metadata: { count: "\ud800" } }));
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]?.loc.slice(0, 4)).toEqual(["body", "document", "metadata", "count"]);
    expect(await storedDocument("meta-bad")).toBeNull();
  });

  it("stores external_access, owners, chunk_count, additional_info and doc_metadata as given", async () => {
    await app.ingest(
      ingestionBody({
        id: "all-fields",
        title: "Onboarding (search title)",
        external_access: { external_user_emails: ["a@example.com"], external_user_group_ids: ["eng"], is_public: false },
        primary_owners: [{ first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" }],
        secondary_owners: [{ display_name: "Grace" }],
        chunk_count: 7,
        additional_info: { any: ["thing", 1] },
        doc_metadata: { hierarchy: { path: ["Eng", "Guides"] } },
      }),
    );
    expect(await storedDocument("all-fields")).toMatchObject({
      title: "Onboarding (search title)",
      externalUserEmails: ["a@example.com"],
      externalUserGroupIds: ["eng"],
      isPublic: false,
      primaryOwners: [{ first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" }],
      secondaryOwners: [{ display_name: "Grace" }],
      additionalInfo: { any: ["thing", 1] },
      docMetadata: { hierarchy: { path: ["Eng", "Guides"] } },
    });
  });

  it("replaces sections, metadata, owners and the rest entirely on re-ingest", async () => {
    await app.ingest(
      ingestionBody({
        id: "replace-me",
        title: "Old title",
        sections: [{ text: "one" }, { text: "two" }, { text: "three" }],
        metadata: { old: "yes" },
        primary_owners: [{ email: "old@example.com" }],
        external_access: { external_user_emails: ["x@example.com"], external_user_group_ids: [], is_public: false },
      }),
    );
    await app.ingest(ingestionBody({ id: "replace-me", sections: [{ text: "only", link: "https://new" }], metadata: { fresh: ["a"] } }));
    const document = await storedDocument("replace-me");
    expect(document).toMatchObject({
      title: null,
      metadata: { fresh: ["a"] },
      primaryOwners: null,
      externalUserEmails: [],
      isPublic: null,
      link: "https://new",
      version: 2,
    });
    expect(document?.sections.map((section) => section.text)).toEqual(["only"]);
  });

  it("accepts empty sections", async () => {
    const response = await app.ingest(ingestionBody({ id: "no-sections", sections: [] }));
    expect(response.status).toBe(200);
    expect((await storedDocument("no-sections"))?.sections).toEqual([]);
  });

  it("ignores unknown fields", async () => {
    const response = await app.ingest({ ...ingestionBody({ id: "unknown-fields", surprise: 1 }), extra: { nested: true } });
    expect(response.status).toBe(200);
  });

  it("removes NUL characters from every string instead of failing", async () => {
    const response = await app.ingest(
      ingestionBody({ id: "nul\u0000-id", semantic_identifier: "N\u0000UL", sections: [{ text: "a\u0000b" }], metadata: { "k\u0000": "v\u0000" } }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ document_id: "nul-id", already_existed: false });
    const document = await storedDocument("nul-id");
    expect(document).toMatchObject({ semanticIdentifier: "NUL", metadata: { k: "v" } });
    expect(document?.sections[0]?.text).toBe("ab");
  });
});

describe("sections that reference images", () => {
  it("keeps a text section's image_file_id only when it names an uploaded file", async () => {
    const file = await uploadTestImage(app, "a.png");
    const response = await app.ingest(
      ingestionBody({
        id: "text-with-images",
        sections: [
          { text: "placeholder image id", image_file_id: "some-image-id" },
          { text: "real image id", image_file_id: file.fileId },
        ],
      }),
    );
    expect(response.status).toBe(200);
    const sections = (await storedDocument("text-with-images"))?.sections;
    expect(sections?.map((section) => [section.kind, section.imageFileId])).toEqual([
      ["text", null],
      ["text", file.fileId],
    ]);
    // Indexed, the section that names a real image is a chunk of its own that keeps the file id.
    await indexTestDocuments(app.db, ["text-with-images"]);
    const chunks = await app.db.documentChunk.findMany({ where: { documentId: "text-with-images" }, orderBy: { chunkIndex: "asc" } });
    expect(chunks.map((chunk) => [chunk.content, chunk.imageFileId])).toEqual([
      ["placeholder image id", null],
      ["real image id", file.fileId],
    ]);
  });
});

describe("request size", () => {
  it("answers 413 naming the limit for a body above it, storing nothing", async () => {
    const response = await app.ingest(ingestionBody({ id: "too-big", sections: [{ text: "x".repeat(300 * 1024) }] }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { detail: string }).detail).toContain(String(256 * 1024));
    expect(await storedDocument("too-big")).toBeNull();
  });
});

describe("atomicity", () => {
  it("stores nothing and answers 5xx when the indexing job cannot be enqueued", async () => {
    // Make every job insert fail inside the ingestion transaction.
    await app.db.$executeRawUnsafe(`
      CREATE FUNCTION pg_temp_refuse_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'job table unavailable'; END $$`);
    await app.db.$executeRawUnsafe(`CREATE TRIGGER refuse_jobs BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION pg_temp_refuse_jobs()`);
    try {
      const response = await app.ingest(ingestionBody({ id: "never-stored" }));
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(await storedDocument("never-stored")).toBeNull();
      expect(await app.db.documentSection.count({ where: { documentId: "never-stored" } })).toBe(0);
    } finally {
      await app.db.$executeRawUnsafe(`DROP TRIGGER refuse_jobs ON pgboss.job`);
      await app.db.$executeRawUnsafe(`DROP FUNCTION pg_temp_refuse_jobs()`);
    }
    expect((await app.ingest(ingestionBody({ id: "never-stored" }))).status).toBe(200);
  });
});
