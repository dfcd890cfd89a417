import type { DocMinimalInfo, DocMinimalInfoPage } from "@svc/schema";

/**
 * A REST document listing as the original answers it: a bare JSON array (docs/decisions.md
 * "Document lists"). A page (`limit` given) carries `Link: <…>; rel="next"` (RFC 8288) while more
 * remain; the whole list is streamed batch by batch, pulled only as fast as the client reads.
 */
export async function documentListResponse(
  request: Request,
  list: DocMinimalInfoPage | AsyncIterable<DocMinimalInfo[]>,
): Promise<Response> {
  if (!(Symbol.asyncIterator in list)) {
    const headers = new Headers();
    if (list.next_cursor !== null) headers.set("link", `<${nextPageUrl(request, list.next_cursor)}>; rel="next"`);
    return Response.json(list.documents, { headers });
  }
  // The first batch is read before the response exists, so a failure there (the database away: 503)
  // is still answered through the error table rather than as a cut-off stream.
  const batches = list[Symbol.asyncIterator]();
  const first = await batches.next();
  return new Response(streamJsonArray(first, batches), { headers: { "content-type": "application/json" } });
}

/** The request's own URL with `cursor` replaced: every other parameter (`limit`) carries over. */
function nextPageUrl(request: Request, cursor: string): string {
  const url = new URL(request.url);
  url.searchParams.set("cursor", cursor);
  return url.toString();
}

/** Bytes per chunk of a streamed list, about: small pieces stay in V8's young generation and die young. */
const STREAM_CHUNK_CHARS = 16 * 1024;

/**
 * `[`, the items separated by commas, `]`. `pull` reads the next batch only when the consumer wants
 * more bytes, so memory holds one batch. A batch is sent in pieces of ~16 KB rather than one string:
 * a string or buffer of a megabyte is allocated in V8's old generation and stays until a major
 * collection, so whole-batch pieces made the process's peak memory grow with the list's length.
 * Once the 200 is sent a failing query cannot change the status: the stream errors and the client
 * sees a truncated (invalid) array, never a wrong one.
 */
function streamJsonArray(
  first: IteratorResult<DocMinimalInfo[]>,
  iterator: AsyncIterator<DocMinimalInfo[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: IteratorResult<DocMinimalInfo[]> | null = first;
  let separator = "[";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = pending ?? (await iterator.next());
      pending = null;
      if (next.done) {
        controller.enqueue(encoder.encode(separator === "[" ? "[]" : "]"));
        controller.close();
        return;
      }
      let piece = "";
      for (const document of next.value) {
        piece += separator + JSON.stringify(document);
        separator = ",";
        if (piece.length >= STREAM_CHUNK_CHARS) {
          controller.enqueue(encoder.encode(piece));
          piece = "";
        }
      }
      if (piece.length > 0) controller.enqueue(encoder.encode(piece));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
