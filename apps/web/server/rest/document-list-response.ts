import { DocMinimalInfoListSchema, toWire, type Camel, type DocMinimalInfo, type DocMinimalInfoPage } from "@svc/schema";

/**
 * A REST document listing as the original answers it: a bare JSON array (docs/decisions.md
 * "Per-document routes and document lists"). A page (`limit` given) carries `Link: <…>; rel="next"` (RFC 8288) while more
 * remain; the whole list is streamed batch by batch, pulled only as fast as the client reads.
 */
export async function documentListResponse(
  request: Request,
  list: Camel<DocMinimalInfoPage> | AsyncIterable<Camel<DocMinimalInfo>[]>,
): Promise<Response> {
  if (!(Symbol.asyncIterator in list)) {
    const headers = new Headers();
    if (list.nextCursor !== null) headers.set("link", `<${nextPageUrl(request, list.nextCursor)}>; rel="next"`);
    return Response.json(toWire(DocMinimalInfoListSchema, list.documents), { headers });
  }
  // The first batch is read before the response exists, so a failure there (the database away: 503)
  // is still answered through the error table rather than as a cut-off stream.
  const batches = list[Symbol.asyncIterator]();
  const first = await batches.next();
  return new StreamedTextResponse(jsonArrayPieces(first, batches), { "content-type": "application/json" });
}

/** The request's own URL with `cursor` replaced: every other parameter (`limit`) carries over. */
function nextPageUrl(request: Request, cursor: string): string {
  const url = new URL(request.url);
  url.searchParams.set("cursor", cursor);
  return url.toString();
}

/** Characters per piece of a streamed list, about: small strings stay in V8's young generation and die young. */
const PIECE_CHARS = 16 * 1024;

/**
 * A streamed text answer. Its body is a web stream (what Next's route handler sends); the
 * production server's node:http front writes `pieces` to the socket as strings instead, because
 * Node copies a string into memory it frees as soon as the socket has taken it, while every
 * Uint8Array a web stream carries holds native memory until V8 collects its wrapper: pieces that
 * lived long enough to reach the old generation stayed until a major collection, and the server's
 * peak memory grew with the list's length.
 */
export class StreamedTextResponse extends Response {
  readonly pieces: AsyncIterable<string>;

  constructor(pieces: AsyncIterable<string>, headers: Record<string, string>) {
    const encoder = new TextEncoder();
    const iterator = pieces[Symbol.asyncIterator]();
    // highWaterMark 0: nothing is pulled before a reader asks, so the front that sends `pieces`
    // and a body nobody reads never take from the same iterator.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        },
        async cancel() {
          await iterator.return?.();
        },
      },
      { highWaterMark: 0 },
    );
    super(body, { headers });
    this.pieces = { [Symbol.asyncIterator]: () => iterator };
  }
}

/**
 * `[`, the items separated by commas, `]`, in pieces of ~16 K characters. The next batch is read
 * only when the consumer wants more, so memory holds one batch. Once the 200 is sent a failing query
 * cannot change the status: the stream errors and the client sees a truncated (invalid) array,
 * never a wrong one.
 */
async function* jsonArrayPieces(
  first: IteratorResult<Camel<DocMinimalInfo>[]>,
  iterator: AsyncIterator<Camel<DocMinimalInfo>[]>,
): AsyncGenerator<string> {
  let separator = "[";
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      let piece = "";
      for (const document of toWire(DocMinimalInfoListSchema, next.value)) {
        piece += separator + JSON.stringify(document);
        separator = ",";
        if (piece.length >= PIECE_CHARS) {
          yield piece;
          piece = "";
        }
      }
      if (piece.length > 0) yield piece;
    }
    yield separator === "[" ? "[]" : "]";
  } finally {
    await iterator.return?.();
  }
}
