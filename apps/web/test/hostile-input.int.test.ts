// Hostile and careless input over the REST routes and the console's tRPC endpoint: every answer is a
// designed 4xx with the contract's body (decisions.md, "Every error is JSON" and "Validation
// parity"; validation-examples.md), and nothing stored changes.
import { encodeDocumentCursor } from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcHandler } from "../app/api/trpc/[trpc]/route";
import { ERROR_DETAIL, ingestionBody, useTestApp } from "./app";

const app = useTestApp();
const INGESTION = "/api/svc-api/ingestion";
const LONE = "\ud800";
const SENTINELS = ["sentinel-1", "sentinel-2"];

/** Everything stored about documents, as rows of JSON, to compare before and after. */
async function storedState(): Promise<unknown> {
  const [documents, sections, links, files] = await Promise.all([
    app.db.$queryRaw`SELECT to_jsonb(d) AS row FROM document d ORDER BY d.id`,
    app.db.$queryRaw`SELECT to_jsonb(s) AS row FROM document_section s ORDER BY s.document_id, s.position`,
    app.db.$queryRaw`SELECT to_jsonb(l) AS row FROM document_by_cc_pair l ORDER BY l.document_id, l.cc_pair_id`,
    app.db.$queryRaw`SELECT count(*)::int AS count FROM uploaded_file`,
  ]);
  return { documents, sections, links, files };
}

async function expect422(response: Response): Promise<Array<{ type: string; loc: unknown[]; msg: string; input?: unknown }>> {
  expect(response.status).toBe(422);
  const body = (await response.json()) as { detail: Array<{ type: string; loc: unknown[]; msg: string; input?: unknown }> };
  expect(Array.isArray(body.detail)).toBe(true);
  return body.detail;
}

/** `body` as JSON, posted with its title's "XX" replaced by raw `bytes` (text JSON.stringify cannot write). */
function postBytes(path: string, body: unknown, bytes: number[], { byteOrderMark = false } = {}): Promise<Response> {
  const json = new TextEncoder().encode(JSON.stringify(body));
  const at = json.indexOf(0x58);
  const sent = Uint8Array.from([...(byteOrderMark ? [0xef, 0xbb, 0xbf] : []), ...json.subarray(0, at), ...bytes, ...json.subarray(at + 2)]);
  return app.request("POST", path, { body: sent, headers: { "content-type": "application/json" } });
}

/** A raw JSON text posted to the ingestion route (for bodies JSON.stringify cannot write). */
function postText(text: string): Promise<Response> {
  return app.request("POST", INGESTION, { body: text, headers: { "content-type": "application/json" } });
}

let before: unknown;

beforeAll(async () => {
  for (const id of SENTINELS) {
    const response = await app.ingest(ingestionBody({ id, metadata: { team: "core" } }));
    expect(response.status).toBe(200);
  }
  before = await storedState();
});

describe("REST: refused, with the contract's 422", () => {
  it("answers lone surrogates with string_unicode at the field's loc", async () => {
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ id: `sentinel-1${LONE}` }, ["body", "document", "id"]],
      [{ id: "sentinel-1", metadata: { [LONE]: "v" } }, ["body", "document", "metadata", LONE, "[key]"]],
      [{ id: "sentinel-1", metadata: { k: [LONE] } }, ["body", "document", "metadata", "k", 0]],
      [{ id: "sentinel-1", sections: [{ text: LONE }] }, ["body", "document", "sections", 0, "TextSection", "text"]],
      [{ id: "sentinel-1", title: LONE }, ["body", "document", "title"]],
      [{ id: "sentinel-1", doc_metadata: { a: { b: LONE } } }, ["body", "document", "doc_metadata", "a", "b"]],
    ];
    for (const [document, loc] of cases) {
      const detail = await expect422(await app.ingest(ingestionBody(document)));
      expect(detail).toContainEqual(expect.objectContaining({ type: "string_unicode", loc }));
    }
    // The escape as a client would write it on the wire.
    const detail = await expect422(await postText('{"document": {"id": "x\\udc00", "sections": [], "semantic_identifier": "s", "metadata": {}}}'));
    expect(detail).toEqual([
      {
        type: "string_unicode",
        loc: ["body", "document", "id"],
        msg: "Input should be a valid string, unable to parse raw data as a unicode string",
        input: "x\udc00",
      },
    ]);
  });

  it("answers integers beyond int4 with the bound", async () => {
    expect(await expect422(await app.ingest(ingestionBody({}, { cc_pair_id: -2147483649 })))).toEqual([
      {
        type: "greater_than_equal",
        loc: ["body", "cc_pair_id"],
        msg: "Input should be greater than or equal to -2147483648",
        input: -2147483649,
        ctx: { ge: -2147483648 },
      },
    ]);
    expect(await expect422(await app.ingest(ingestionBody({ chunk_count: 2147483648 })))).toEqual([
      expect.objectContaining({ type: "less_than_equal", loc: ["body", "document", "chunk_count"] }),
    ]);
    const search = await app.request("POST", "/api/svc-api/search", { body: { query: "x", filters: { cc_pair_ids: [2147483648] } } });
    expect(await expect422(search)).toEqual([
      expect.objectContaining({ type: "less_than_equal", loc: ["body", "filters", "cc_pair_ids", 0] }),
    ]);
    const docs = await app.request("GET", "/api/svc-api/connector-docs/99999999999");
    expect(await expect422(docs)).toEqual([expect.objectContaining({ type: "less_than_equal", loc: ["path", "cc_pair_id"] })]);
  });

  it("answers JSON nested 20,000 levels deep with one value_error at body", async () => {
    const deep = '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000);
    const texts = [
      "[".repeat(20_000) + "]".repeat(20_000),
      `{"document": {"id": "sentinel-1", "sections": [], "semantic_identifier": "s", "metadata": {}, "additional_info": ${deep}}}`,
      `{"document": {"id": "sentinel-1", "sections": [], "semantic_identifier": "s", "metadata": {"k": ${"[".repeat(5000)}"\\u0000"${"]".repeat(5000)}}}}`,
    ];
    for (const text of texts) {
      expect(await expect422(await postText(text))).toEqual([
        { type: "value_error", loc: ["body"], msg: "Value error, JSON nested too deeply", input: null },
      ]);
    }
  });

  it("answers a body that is not UTF-8 with the original's 400", async () => {
    // Latin-1 "é", a stray continuation byte, an encoded surrogate, an overlong "/", a cut-off sequence,
    // each inside a string (only the bytes' encoding is wrong).
    for (const bytes of [[0xe9, 0x20], [0x80, 0x20], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82]]) {
      for (const path of [INGESTION, `${INGESTION}/batch`]) {
        const response = await postBytes(path, ingestionBody({ id: "sentinel-1", title: "bytes XX" }), bytes);
        expect(response.status, `${path} ${bytes.join(",")}`).toBe(400);
        expect(await response.json()).toEqual({ detail: "There was an error parsing the body" });
      }
    }
  });

  it("refuses the ids '.' and '..'", async () => {
    for (const id of [".", ".."]) {
      expect(await expect422(await app.ingest(ingestionBody({ id })))).toEqual([
        expect.objectContaining({ type: "value_error", loc: ["body", "document", "id"], input: id }),
      ]);
    }
  });

  it("answers a %00 in a path id with 422, and other control characters as any unknown id", async () => {
    for (const method of ["GET", "DELETE"]) {
      expect(await expect422(await app.request(method, `${INGESTION}/sentinel-1%00`))).toEqual([
        expect.objectContaining({ type: "value_error", loc: ["path", "document_id"] }),
      ]);
      const control = await app.request(method, `${INGESTION}/sentinel-1%01%1F%7F`);
      expect(control.status).toBe(404);
      expect(await control.json()).toEqual(ERROR_DETAIL);
    }
  });

  it("answers cursors that decode to garbage with 422 at query.cursor", async () => {
    const cursors = [encodeDocumentCursor("sentinel-1\u0000"), "%00", "%01abc", "_w", "%ED%A0%80", "a".repeat(5)];
    for (const cursor of cursors) {
      const detail = await expect422(await app.request("GET", `${INGESTION}?limit=1&cursor=${cursor}`));
      expect(detail).toEqual([expect.objectContaining({ loc: ["query", "cursor"] })]);
    }
  });

  it("stores an upload whose file name holds control characters, without them", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
    const form = new FormData();
    form.append("files", new Blob([png]), "dia\u0000gram\u0007.png");
    const response = await app.request("POST", "/api/user/file/upload", { body: form });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user_files: Array<{ name: string }> };
    expect(body.user_files.map((file) => file.name)).toEqual(["diagram.png"]);
    await app.db.uploadedFile.deleteMany({});
  });

  it("never fails on raw bytes in a multipart file name (NUL, %00, invalid UTF-8)", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
    const encoder = new TextEncoder();
    for (const name of [Uint8Array.from([0x61, 0x00, 0x62]), encoder.encode("a%00b"), Uint8Array.from([0x61, 0xff, 0xed, 0xa0, 0x80])]) {
      const body = Buffer.concat([
        encoder.encode('--b\r\nContent-Disposition: form-data; name="files"; filename="'),
        name,
        encoder.encode('.png"\r\nContent-Type: image/png\r\n\r\n'),
        png,
        encoder.encode("\r\n--b--\r\n"),
      ]);
      const response = await app.request("POST", "/api/user/file/upload", {
        body: new Uint8Array(body),
        headers: { "content-type": "multipart/form-data; boundary=b" },
      });
      expect(response.status).toBe(200);
    }
    // NUL dropped; a literal "%00" is only text in a label; bytes that are not UTF-8 read as U+FFFD.
    const names = await app.db.uploadedFile.findMany({ select: { name: true }, orderBy: { id: "asc" } });
    expect(names.map(({ name }) => name)).toEqual(["ab.png", "a%00b.png", "a\ufffd\ufffd\ufffd\ufffd.png"]);
    await app.db.uploadedFile.deleteMany({});
  });
});

describe("REST: validation parity with the original", () => {
  it("answers a model-typed field given a non-object with model_attributes_type", async () => {
    const message = "Input should be a valid dictionary or object to extract fields from";
    expect(await expect422(await app.ingest([]))).toEqual([{ type: "model_attributes_type", loc: ["body"], msg: message, input: [] }]);
    expect(await expect422(await app.ingest({ document: null }))).toEqual([
      { type: "model_attributes_type", loc: ["body", "document"], msg: message, input: null },
    ]);
    const status = await app.request("POST", "/api/manage/admin/connector/indexing-status", { body: [] });
    expect(await expect422(status)).toEqual([{ type: "model_attributes_type", loc: ["body"], msg: message, input: [] }]);
  });

  it("reports a section that fits neither member once per member", async () => {
    const at = (...rest: unknown[]) => ["body", "document", "sections", 0, ...rest];
    for (const section of [{}, { link: "https://x" }]) {
      const detail = await expect422(await app.ingest(ingestionBody({ sections: [section] })));
      expect(detail.map((item) => [item.type, item.loc, item.msg])).toEqual([
        ["missing", at("TextSection", "text"), "Field required"],
        ["missing", at("ImageSection", "image_file_id"), "Field required"],
      ]);
    }
    const detail = await expect422(await app.ingest(ingestionBody({ sections: [{ text: 5 }] })));
    expect(detail.map((item) => [item.type, item.loc, item.msg])).toEqual([
      ["string_type", at("TextSection", "text"), "Input should be a valid string"],
      ["missing", at("ImageSection", "image_file_id"), "Field required"],
      ["string_type", at("ImageSection", "text"), "Input should be a valid string"],
    ]);
  });

  it("answers an unparsable date-time with datetime_from_date_parsing and pydantic's first fault", async () => {
    // The worked examples of docs/decisions.md ("Validation errors"): pydantic 2.11's reason for each
    // fault class.
    for (const [input, reason] of [
      ["2024-05", "input is too short"],
      ["not a date", "invalid character in year"],
      ["2024/05/01", "invalid date separator, expected `-`"],
      ["2024-5-01xx", "invalid character in month"],
      ["2024-13-01", "month value is outside expected range of 1-12"],
      ["2024-05-1x", "invalid character in day"],
      ["2023-02-29", "day value is outside expected range"],
      ["2024-05-01T25:00:00Z", "unexpected extra characters at the end of the input"],
      ["2024-05-01T10:00+05", "unexpected extra characters at the end of the input"],
      ["2024-05-01T10:00Zjunk", "unexpected extra characters at the end of the input"],
      ["300000000000000000", "dates after 9999 are not supported as unix timestamps"],
    ]) {
      expect(await expect422(await app.ingest(ingestionBody({ doc_updated_at: input })))).toEqual([
        expect.objectContaining({
          type: "datetime_from_date_parsing",
          loc: ["body", "document", "doc_updated_at"],
          msg: `Input should be a valid datetime or date, ${reason}`,
        }),
      ]);
    }
    expect(await expect422(await app.ingest(ingestionBody({ doc_updated_at: "0000-01-01" })))).toEqual([
      expect.objectContaining({
        type: "datetime_parsing",
        loc: ["body", "document", "doc_updated_at"],
        msg: "Input should be a valid datetime, year 0 is out of range",
      }),
    ]);
    expect(await expect422(await app.ingest(ingestionBody({ doc_updated_at: 253402300800000 })))).toEqual([
      expect.objectContaining({
        type: "datetime_parsing",
        loc: ["body", "document", "doc_updated_at"],
        msg: "Input should be a valid datetime, dates after 9999 are not supported as unix timestamps",
      }),
    ]);
    expect(await expect422(await app.ingest(ingestionBody({ doc_updated_at: { at: 1 } })))).toEqual([
      expect.objectContaining({ type: "datetime_type", loc: ["body", "document", "doc_updated_at"] }),
    ]);
  });

  it("stores the nothing-changed check of the refused requests above", async () => {
    expect(await storedState()).toEqual(before);
  });

  it("takes a UTF-8 body that starts with a byte-order mark, as the original does", async () => {
    const response = await postBytes(INGESTION, ingestionBody({ id: "bom-accepted", title: "bytes XX" }), [0xc3, 0xa9], { byteOrderMark: true });
    expect(response.status).toBe(200);
    const [stored] = await app.db.$queryRaw<Array<{ title: string }>>`SELECT title FROM document WHERE id = 'bom-accepted'`;
    expect(stored?.title).toBe("bytes é");
  });

  it("accepts repeated external_access entries and metadata of any JSON type, stored as decisions.md says", async () => {
    const response = await app.ingest(
      ingestionBody({
        id: "parity-accepted",
        external_access: { external_user_emails: ["a@x", "a@x"], external_user_group_ids: ["g", "g", "h"], is_public: false },
        metadata: { n: 5, tags: [1, 2], x: null, flag: true, obj: { a: "b" } },
      }),
    );
    expect(response.status).toBe(200);
    const stored = await app.request("GET", `${INGESTION}/parity-accepted`);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({
      external_access: { external_user_emails: ["a@x"], external_user_group_ids: ["g", "h"], is_public: false },
      metadata: { n: "5", tags: ["1", "2"], x: "None", flag: "True", obj: '{"a":"b"}' },
    });
  });
});

describe("tRPC: a clear BAD_REQUEST, never internal text", () => {
  let cookie = "";

  beforeAll(async () => {
    const response = await trpc("POST", "session.signIn", { apiKey: app.adminKey });
    expect(response.status).toBe(200);
    cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  });

  afterAll(async () => {
    await app.db.$executeRawUnsafe(`ALTER TABLE IF EXISTS document_gone RENAME TO document`);
  });

  /** A call through the console's real fetch handler, from the console's own origin. */
  function trpc(method: "GET" | "POST", procedure: string, input: unknown): Promise<Response> {
    const envelope = encodeURIComponent(JSON.stringify({ json: input }));
    const url = `http://localhost/api/trpc/${procedure}${method === "GET" ? `?input=${envelope}` : ""}`;
    return trpcHandler(
      new Request(url, {
        method,
        headers: { origin: "http://localhost", "content-type": "application/json", cookie },
        body: method === "POST" ? JSON.stringify({ json: input }) : undefined,
      }),
    );
  }

  async function trpcError(response: Response): Promise<{ message: string; code: string }> {
    const body = (await response.json()) as { error: { json: { message: string; data: { code: string } } } };
    return { message: body.error.json.message, code: body.error.json.data.code };
  }

  it("refuses NUL bytes and lone surrogates in inputs with BAD_REQUEST", async () => {
    for (const documentId of ["sentinel-1\u0000", `sentinel-1${LONE}`]) {
      const response = await trpc("GET", "documents.get", { documentId });
      expect(response.status).toBe(400);
      const error = await trpcError(response);
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.message).toMatch(/NUL characters or unpaired UTF-16 surrogates/);
    }
    const signIn = await trpc("POST", "session.signIn", { apiKey: "svc_\u0000" });
    expect(signIn.status).toBe(400);
  });

  it("answers inputs nested 20,000 levels deep with a 4xx", async () => {
    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    const bodies = [
      `{"json": {"apiKey": ${deep}}}`,
      // superjson's own annotations, nested as deep.
      `{"json": {"apiKey": "x"}, "meta": {"values": {"apiKey": ${deep}}}}`,
    ];
    for (const body of bodies) {
      const response = await trpcHandler(
        new Request("http://localhost/api/trpc/session.signIn", {
          method: "POST",
          headers: { origin: "http://localhost", "content-type": "application/json", cookie },
          body,
        }),
      );
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toMatch(/call stack|"stack"|node_modules/);
    }
  });

  it("answers an internal failure with a generic message, not the driver's text", async () => {
    await app.db.$executeRawUnsafe(`ALTER TABLE document RENAME TO document_gone`);
    try {
      const response = await trpc("GET", "documents.get", { documentId: "sentinel-1" });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ error: { json: { message: "Internal server error" } } });
      expect(text).not.toMatch(/relation|prisma|postgres|does not exist|\.ts\b/i);
    } finally {
      await app.db.$executeRawUnsafe(`ALTER TABLE document_gone RENAME TO document`);
    }
  });

  it("leaves the stored documents unchanged", async () => {
    const state = (await storedState()) as { documents: Array<{ row: { id: string } }> };
    const sentinels = state.documents.filter(({ row }) => SENTINELS.includes(row.id));
    expect(sentinels).toEqual((before as typeof state).documents);
  });
});
