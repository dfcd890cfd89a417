// Every REST endpoint of the contract, driven with generated requests over raw HTTP against the
// production server: bodies generated from the endpoints' schemas (through the OpenAPI document they
// produce) with hostile mutations, hostile path segments and queries, content types, Content-Length
// values and credentials. Whatever arrives, the answer is never a 5xx (but one the contract declares,
// readiness's 503 while no worker runs), every 4xx has the contract's body, and the sentinel documents
// of two pairs stay byte-for-byte as they were.
import net from "node:net";
import { createTestKey, createTestPair, indexTestDocuments, testIngestionBody } from "@svc/core/testing";
import { buildOpenApiDocument, REST_CONTRACT, successStatus, type RestEndpoint } from "@svc/schema";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { useProductionServer } from "./production-server";

const app = useProductionServer();

/** Enough runs to reach every endpoint with many shapes, few enough to finish in seconds. */
const RUNS = 500;

const SENTINEL_IDS = ["sentinel-a-1", "sentinel/a-2", "sentinel-b-1", "sentinel b 2"];

type Auth = "admin" | "admin-scoped-away" | "curator-scoped-away" | "none" | "wrong-key" | "basic-scheme" | "empty-bearer";

interface Fixture {
  sentinelPairIds: number[];
  keys: Record<"admin" | "admin-scoped-away" | "curator-scoped-away", string>;
}
const fixture = {} as Fixture;

/** Everything stored about the sentinel documents, as JSON text, to compare before and after. */
async function sentinelState(): Promise<string> {
  const rows = await app.database.db.$queryRaw<Array<{ state: unknown }>>`
    SELECT jsonb_build_object(
      'documents', (SELECT jsonb_agg(to_jsonb(d) ORDER BY d.id) FROM document d WHERE d.id = ANY(${SENTINEL_IDS})),
      'sections', (SELECT jsonb_agg(to_jsonb(s) ORDER BY to_jsonb(s)::text) FROM document_section s WHERE s.document_id = ANY(${SENTINEL_IDS})),
      'chunks', (SELECT jsonb_agg(to_jsonb(c) ORDER BY to_jsonb(c)::text) FROM document_chunk c WHERE c.document_id = ANY(${SENTINEL_IDS})),
      'links', (SELECT jsonb_agg(to_jsonb(l) ORDER BY to_jsonb(l)::text) FROM document_by_cc_pair l WHERE l.document_id = ANY(${SENTINEL_IDS}))
    ) AS state`;
  return JSON.stringify(rows[0]?.state);
}

let before = "";

beforeAll(async () => {
  const db = app.database.db;
  const pairA = await createTestPair(db, { name: "Sentinel A", access: "private" });
  const pairB = await createTestPair(db, { name: "Sentinel B" });
  const away = await createTestPair(db, { name: "Elsewhere" });
  fixture.sentinelPairIds = [pairA, pairB];
  fixture.keys = {
    admin: app.adminKey,
    "admin-scoped-away": await createTestKey(db, "admin", [away]),
    "curator-scoped-away": await createTestKey(db, "curator", [away]),
  };
  for (const [index, id] of SENTINEL_IDS.entries()) {
    const body = testIngestionBody({ id, text: `sentinel text ${id} `.repeat(50), ccPairId: index < 2 ? pairA : pairB });
    const response = await send({ method: "POST", path: "/svc-api/ingestion", auth: "admin", body: Buffer.from(jsonText(body)), contentType: "application/json" });
    expect(response.status, response.text).toBe(200);
  }
  await indexTestDocuments(db, SENTINEL_IDS);
  before = await sentinelState();
  // Indexed: the sentinels have chunks and links to compare.
  const state = JSON.parse(before) as { chunks: unknown[] | null; links: unknown[] | null };
  expect(state.chunks?.length).toBeGreaterThanOrEqual(SENTINEL_IDS.length);
  expect(state.links).toHaveLength(SENTINEL_IDS.length);
}, 60_000);

// ---------------------------------------------------------------------------------------------
// Raw HTTP, so that paths, headers and Content-Length can be anything a socket can carry.

type ContentLength = "exact" | "shorter" | "not-a-number" | "negative" | "twice" | "chunked" | "absent";

interface RawRequest {
  method: string;
  /** Under /api, sent as is (already percent-encoded where the generator meant to). */
  path: string;
  auth: Auth;
  body?: Buffer;
  contentType?: string;
  contentLength?: ContentLength;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function authorization(auth: Auth): string | undefined {
  switch (auth) {
    case "none":
      return undefined;
    case "wrong-key":
      return "Bearer svc_this-key-does-not-exist";
    case "basic-scheme":
      return "Basic YWRtaW46YWRtaW4=";
    case "empty-bearer":
      return "Bearer ";
    default:
      return `Bearer ${fixture.keys[auth]}`;
  }
}

function requestBytes({ method, path, auth, body, contentType, contentLength = "exact" }: RawRequest): Buffer {
  const lines = [`${method} /api${path} HTTP/1.1`, "host: 127.0.0.1", "connection: close"];
  const key = authorization(auth);
  if (key !== undefined) lines.push(`authorization: ${key}`);
  if (contentType !== undefined) lines.push(`content-type: ${contentType}`);
  let payload = body ?? Buffer.alloc(0);
  if (body !== undefined) {
    if (contentLength === "exact") lines.push(`content-length: ${body.length}`);
    // A body longer than its Content-Length: the server reads the declared bytes only.
    if (contentLength === "shorter") lines.push(`content-length: ${Math.max(0, body.length - 1 - (body.length >> 1))}`);
    if (contentLength === "not-a-number") lines.push("content-length: twelve");
    if (contentLength === "negative") lines.push("content-length: -1");
    if (contentLength === "twice") lines.push(`content-length: ${body.length}`, `content-length: ${body.length + 1}`);
    if (contentLength === "chunked") {
      lines.push("transfer-encoding: chunked");
      payload = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]);
    }
  }
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), payload]);
}

/** Sends one request on its own connection and reads the answer until the server closes it. */
function send(request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(app.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 20 s to ${request.method} ${request.path.slice(0, 200)}`));
    }, 20_000);
    let eventStream = false;
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      // An event stream's 200 stays open (GET /svc-api/events): its status and headers are the answer.
      const bytes = Buffer.concat(received);
      const head = bytes.indexOf("\r\n\r\n");
      if (!eventStream && head >= 0 && /^content-type: text\/event-stream/im.test(bytes.subarray(0, head).toString("latin1"))) {
        eventStream = true;
        received.splice(0, received.length, bytes.subarray(0, head + 4));
        socket.destroy();
      }
    });
    // The server may answer (413, 400) and close before the whole body is written.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(received)));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    // Not end(): node:http aborts a request whose client half-closes the connection. `connection:
    // close` has the server close it once it has answered.
    socket.write(requestBytes(request));
  });
}

function parseResponse(bytes: Buffer): RawResponse {
  const split = bytes.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no complete answer: ${JSON.stringify(bytes.toString("latin1").slice(0, 300))}`);
  const [statusLine = "", ...headerLines] = bytes.subarray(0, split).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(split + 4);
  if (headers["transfer-encoding"] === "chunked" && body.length > 0) body = dechunk(body);
  return { status, headers, text: body.toString("utf8") };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", offset);
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

// ---------------------------------------------------------------------------------------------
// Generated values: valid-ish from the endpoints' schemas, and hostile ones to mutate them with.

/** A piece of JSON text spliced in verbatim (what JSON.stringify cannot write: 10^30, depth 20,000). */
class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson pieces. */
function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (!(inner instanceof RawJson)) return inner;
    raws.push(inner.text);
    return `@@raw${raws.length - 1}@@`;
  });
  return (text ?? "null").replace(/"@@raw(\d+)@@"/g, (_match, index: string) => raws[Number(index)] ?? "null");
}

const nested = (depth: number, open: string, close: string) => new RawJson(open.repeat(depth) + "1" + close.repeat(depth));

const HOSTILE_STRING: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("\ud800", "x\udc00y", "\udfff\ud800", "\u0000", "a\u0000b", "\u0007\u001b[2J", "\u202e", "\ufffe", "", " ", ".", ".."),
  fc.constantFrom("%00", "%2e%2e", "../../etc/passwd", "<script>", "' OR 1=1 --", "\\", "😀".repeat(100)),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom(10_000, 300_000, 2_000_000).map((length) => "h".repeat(length)),
);

const HOSTILE_VALUE: fc.Arbitrary<unknown> = fc.oneof(
  HOSTILE_STRING,
  fc.constantFrom(2_147_483_648, -2_147_483_649, new RawJson("9007199254740993"), 1e308, -1e308, 0.5, -0, -1),
  fc.constantFrom(new RawJson("1" + "0".repeat(40)), new RawJson("-1e400"), new RawJson("1e-400")),
  fc.constantFrom(nested(300, "[", "]"), nested(5_000, "[", "]"), nested(20_000, '{"a":', "}")),
  fc.constantFrom(null, true, false, 0, [], {}, [[[]]], { "": null }),
  fc.jsonValue({ maxDepth: 2 }),
);

type JsonSchema = {
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
};

const OPENAPI = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
};

/** Values that mostly match `schema` (a JSON Schema from the OpenAPI document), kept small. */
function fromSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (schema.$ref) {
    const target = OPENAPI.components.schemas[schema.$ref.split("/").at(-1) ?? ""];
    return target ? fromSchema(target, depth + 1) : fc.jsonValue({ maxDepth: 1 });
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((inner) => fromSchema(inner, depth + 1)));
  if (schema.allOf?.[0]) return fromSchema(schema.allOf[0], depth + 1);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => fromSchema({ ...schema, type }, depth)));
  switch (schema.type) {
    case "object": {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, inner]) => [name, fromSchema(inner, depth + 1)]));
      if (Object.keys(properties).length > 0) return fc.record(properties, { requiredKeys: schema.required ?? [] });
      const values = typeof schema.additionalProperties === "object" ? fromSchema(schema.additionalProperties, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.dictionary(fc.string({ maxLength: 8 }), values, { maxKeys: 3 });
    }
    case "array":
      return fc.array(schema.items ? fromSchema(schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 }), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.max(Math.min(schema.maxItems ?? 3, 3), Math.min(schema.minItems ?? 0, 3)),
      });
    case "string":
      if (schema.format === "date-time") return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString());
      return fc.string({ minLength: Math.min(schema.minLength ?? 0, 20), maxLength: Math.max(Math.min(schema.maxLength ?? 20, 20), Math.min(schema.minLength ?? 0, 20)) });
    case "integer": {
      // Mostly the ids that exist here (the pairs are 1 to 4), so that valid-ish bodies often succeed.
      const within = (low: number, high: number) => {
        const min = Math.max(schema.minimum ?? low, low);
        const max = Math.min(schema.maximum ?? high, high);
        return min <= max ? fc.integer({ min, max }) : fc.integer({ min: schema.minimum ?? low, max: (schema.minimum ?? low) + 1_000 });
      };
      return fc.oneof({ weight: 3, arbitrary: within(1, 4) }, { weight: 1, arbitrary: within(-5, 1_000) });
    }
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Every place in `value` a mutation can replace or remove, the root first (iterative: values are small). */
function slotsOf(value: unknown): Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> {
  const slots: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (Array.isArray(current)) current.forEach((inner, index) => (slots.push({ parent: current, key: index }), pending.push(inner)));
    else if (current !== null && typeof current === "object" && !(current instanceof RawJson)) {
      for (const [key, inner] of Object.entries(current)) {
        slots.push({ parent: current as Record<string, unknown>, key });
        pending.push(inner);
      }
    }
  }
  return slots;
}

type Mutation = { at: number; kind: "replace" | "remove" | "add"; value: unknown };

/** A copy of a generated value's arrays and objects (RawJson pieces are never changed, so kept). */
function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyValue);
  if (value === null || typeof value !== "object" || value instanceof RawJson) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, copyValue(inner)]));
}

/**
 * `value` with each mutation applied at a slot picked by its `at`. It changes and inserts copies:
 * fc.constantFrom hands out the same object every time (`[[[]]]` above), so changing it in place
 * would change later runs' values, and inserting it twice could put it inside itself (JSON.stringify
 * then throws "circular structure" and the run fails before any request).
 */
function mutate(value: unknown, mutations: Mutation[]): unknown {
  let root = copyValue(value);
  for (const mutation of mutations) {
    const inserted = copyValue(mutation.value);
    const slots = slotsOf(root);
    const slot = slots[mutation.at % (slots.length + 1)];
    if (!slot) {
      root = mutation.kind === "add" && root !== null && typeof root === "object" ? { ...root, unexpected: inserted } : inserted;
      continue;
    }
    const { parent, key } = slot;
    if (mutation.kind === "remove") {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key as string];
    } else if (mutation.kind === "add" && !Array.isArray(parent)) parent[`extra_${String(key)}`] = inserted;
    else (parent as Record<string | number, unknown>)[key] = inserted;
  }
  return root;
}

const MUTATIONS = fc.array(
  fc.record({ at: fc.nat(), kind: fc.constantFrom<Mutation["kind"]>("replace", "replace", "remove", "add"), value: HOSTILE_VALUE }),
  { maxLength: 3 },
);

const GARBAGE_BODY: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom("", "{", "}", "null", "[]", '"text"', "1", "{}{}", '{"a":1,}', "\u0000", "\ufeff{}", '{"document":').map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), Buffer.from('{"\\ud800": 1}')),
);

function jsonBodyArbitrary(schema: JsonSchema): fc.Arbitrary<Buffer> {
  const valid = fromSchema(schema);
  return fc.oneof(
    { weight: 2, arbitrary: valid.map((value) => Buffer.from(jsonText(value))) },
    { weight: 5, arbitrary: fc.tuple(valid, MUTATIONS).map(([value, mutations]) => Buffer.from(jsonText(mutate(value, mutations)))) },
    { weight: 2, arbitrary: GARBAGE_BODY },
  );
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

/** A multipart body with one or two file parts under hostile names, or not a multipart body at all. */
const MULTIPART_BODY: fc.Arbitrary<{ body: Buffer; contentType: string }> = fc.oneof(
  fc
    .record({
      names: fc.array(fc.oneof(fc.constantFrom("image.png", "\u0000.png", "%00.png", "..", "a\r\nb.png", 'q".png'), HOSTILE_STRING), { minLength: 1, maxLength: 2 }),
      field: fc.constantFrom("files", "file", "", "files\u0000"),
      bytes: fc.oneof(fc.constant(PNG), fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes))),
      type: fc.constantFrom("image/png", "application/octet-stream", "text/plain", ""),
      closed: fc.boolean(),
    })
    .map(({ names, field, bytes, type, closed }) => {
      const boundary = "----svcboundary";
      const parts = names.map((name) =>
        Buffer.concat([
          Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${field}"; filename="${name.slice(0, 5_000)}"\r\ncontent-type: ${type}\r\n\r\n`),
          bytes,
          Buffer.from("\r\n"),
        ]),
      );
      return { body: Buffer.concat([...parts, Buffer.from(closed ? `--${boundary}--\r\n` : "")]), contentType: `multipart/form-data; boundary=${boundary}` };
    }),
  fc.record({ body: GARBAGE_BODY, contentType: fc.constantFrom("multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=x") }),
);

/** Percent-encodes like encodeURIComponent, but also writes lone surrogates (as their 3 raw bytes). */
function percentEncode(text: string): string {
  let encoded = "";
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const isPair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    if (code >= 0xd800 && code <= 0xdfff && !isPair) {
      encoded += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
    } else {
      const unit = isPair ? text.slice(index, index + 2) : text[index] ?? "";
      encoded += encodeURIComponent(unit);
      if (isPair) index += 1;
    }
  }
  return encoded;
}

/** A path segment: percent-encoded generated text, or raw bytes a careless client would send. */
const HOSTILE_SEGMENT: fc.Arbitrary<string> = fc.oneof(
  HOSTILE_STRING.filter((text) => text.length < 20_000).map(percentEncode),
  fc.constantFrom(".", "..", "%2e", "%2E%2E", "%00", "%0a", "%ZZ", "%", "a%2Fb", "%252F", "%ed%a0%80", "%c3%28", ";x", "a?b=c", "\u0001", "\t", "x".repeat(9_000)),
);

/** Ids for the `{id}`-like integer segments. */
const INTEGER_SEGMENT: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -3, max: 12 }).map(String),
  fc.constantFrom("0", "-1", "2147483647", "2147483648", "-2147483649", "99999999999999999999", "1e3", "0x10", "1.5", " 1", "1 ", "abc", "", "٣"),
  HOSTILE_SEGMENT,
);

const QUERY: fc.Arbitrary<string> = fc.oneof(
  fc.constant(""),
  fc
    .record(
      { limit: fc.oneof(fc.integer({ min: -2, max: 1_002 }).map(String), HOSTILE_STRING), cursor: HOSTILE_STRING, other: HOSTILE_STRING },
      { requiredKeys: [] },
    )
    .map((params) => "?" + Object.entries(params).map(([name, value]) => `${name}=${percentEncode(value.slice(0, 3_000))}`).join("&")),
  fc.constantFrom("?limit=%00", "?cursor=%ZZ", "?limit=1&limit=2", "?cursor=eyJ4IjoxfQ", "?cursor=AAAA", "?=", "?&&", "?limit"),
);

const CONTENT_TYPES = fc.constantFrom(
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "*/*",
  "application/jsonx",
  undefined,
);

const ENDPOINTS: Array<{ operationId: string; entry: RestEndpoint }> = Object.entries(REST_CONTRACT).map(([operationId, entry]) => ({ operationId, entry }));

/** One request to one endpoint of the contract. */
const REQUEST = fc.constantFrom(...ENDPOINTS).chain(({ operationId, entry }) => {
  const declared = entry.body?.type === "json" ? OPENAPI.paths[entry.path]?.[entry.method.toLowerCase()]?.requestBody?.content["application/json"]?.schema : undefined;
  const json = declared ? jsonBodyArbitrary(declared) : undefined;
  const body: fc.Arbitrary<{ body?: Buffer; contentType?: string }> =
    entry.body?.type === "multipart"
      ? MULTIPART_BODY
      : json
        ? fc.record({ body: json, contentType: CONTENT_TYPES })
        : fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ body: GARBAGE_BODY, contentType: CONTENT_TYPES }) });
  const segments = [...entry.path.matchAll(/\{(\w+)\}/g)].map(([, name]) =>
    name === "document_id" ? fc.oneof(fc.constantFrom(...SENTINEL_IDS).map(percentEncode), HOSTILE_SEGMENT) : INTEGER_SEGMENT,
  );
  return fc.record({
    operationId: fc.constant(operationId),
    // Now and then a method the path does not take (405), or one no route takes.
    method: fc.oneof(
      { weight: 12, arbitrary: fc.constant(entry.method) },
      { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND") },
    ),
    segments: fc.tuple(...segments),
    query: QUERY,
    body,
    auth: fc.constantFrom<Auth>("admin", "admin", "admin", "admin", "admin-scoped-away", "curator-scoped-away", "curator-scoped-away", "none", "wrong-key", "basic-scheme", "empty-bearer"),
    contentLength: fc.oneof(
      { weight: 12, arbitrary: fc.constant<ContentLength>("exact") },
      { weight: 1, arbitrary: fc.constantFrom<ContentLength>("shorter", "not-a-number", "negative", "twice", "chunked") },
    ),
  });
});

/**
 * An unscoped admin key may change anything it names: its writes keep to ids other than the
 * sentinels', so that their state shows what the hostile requests did, not what the admin asked for.
 */
function touchesSentinels(method: string, segments: string[]): boolean {
  if (method === "GET" || method === "POST" || method === "HEAD") return false;
  const sentinelSegments = [...SENTINEL_IDS.map(percentEncode), ...fixture.sentinelPairIds.map(String)];
  return segments.some((segment) => sentinelSegments.includes(segment) || sentinelSegments.includes(segment.trim()));
}

function isValidationList(detail: unknown): boolean {
  return (
    Array.isArray(detail) &&
    detail.every((item: Record<string, unknown>) => typeof item.type === "string" && Array.isArray(item.loc) && typeof item.msg === "string" && "input" in item)
  );
}

it(
  "answers every generated request to every endpoint without a 5xx, with the contract's error bodies, and changes no sentinel",
  async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(REQUEST, async ({ operationId, method, segments, query, body, auth, contentLength }) => {
        const entry: RestEndpoint = REST_CONTRACT[operationId as keyof typeof REST_CONTRACT];
        let segment = 0;
        const path = entry.path.replace(/\{\w+\}/g, () => segments[segment++] ?? "") + query;
        const caller = auth === "admin" && touchesSentinels(method, segments) ? "admin-scoped-away" : auth;
        const response = await send({ method, path, auth: caller, ...body, contentLength });
        seen.add(operationId);
        const context = `${method} /api${path.slice(0, 300)} as ${caller}: ${response.status} ${response.text.slice(0, 500)}`;
        // The entry that answered: this one, or the one taking the other method on the same path.
        const answered = ENDPOINTS.find((other) => other.entry.path === entry.path && other.entry.method === method)?.entry;
        expect(response.status, context).toBeGreaterThanOrEqual(200);
        if (response.status >= 500) {
          // Only a 5xx the contract declares is an answer (readiness: 503 while a check fails), in its shape.
          const declared = answered?.responses[response.status];
          expect(declared, context).toBeDefined();
          expect(declared?.schema?.safeParse(JSON.parse(response.text)).success ?? true, context).toBe(true);
          return;
        }
        if (response.status < 300) {
          expect(answered, context).toBeDefined();
          if (answered) expect(response.status, context).toBe(successStatus(answered));
          return;
        }
        // A HEAD answer has headers only.
        if (method === "HEAD") return;
        expect(response.headers["content-type"], context).toMatch(/^application\/json/);
        const answer = JSON.parse(response.text) as { detail?: unknown };
        if (response.status === 422 && Array.isArray(answer.detail)) {
          expect(isValidationList(answer.detail), context).toBe(true);
        } else {
          // A conditional write's 409 also names the version it found (docs/decisions.md "Conditional writes").
          const conditional = response.status === 409 && operationId === "upsertIngestionDocument";
          expect(Object.keys(answer), context).toEqual(conditional ? ["detail", "current_version"] : ["detail"]);
          expect(typeof answer.detail, context).toBe("string");
        }
      }),
      // A failure prints its seed: SVC_PROPERTY_SEED=<seed> replays the same requests.
      { numRuns: RUNS, endOnFailure: true, ...(process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {}) },
    );
    // fc.constantFrom picks uniformly: with this many runs, every endpoint was called.
    expect([...seen].sort()).toEqual(Object.keys(REST_CONTRACT).sort());
    expect(await sentinelState()).toBe(before);
  },
  120_000,
);
