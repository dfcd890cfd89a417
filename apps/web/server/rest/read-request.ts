import { AppError } from "@svc/core";
import { parseJsonBody, stripNulCharacters, validateBody, ValidationTimeoutError } from "@svc/schema";
import type { z } from "zod";
import { webEnv } from "../env";
import { HttpError } from "./error-response";

/**
 * Reads a JSON body of at most `limitBytes`, strips NUL characters, and validates it within
 * `validationMs` of work. With `emptyBody`, a request without a body counts as that value (for
 * endpoints whose body is optional). A body that is not UTF-8 is a 400, as in the original service
 * (its parser refuses the bytes before any JSON is read): decoding it with replacement characters
 * would store text the client never sent.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  { schema, refuseTooLarge }: { schema: Schema; refuseTooLarge?: (body: unknown) => string | undefined },
  { limitBytes, validationMs, emptyBody }: { limitBytes: number; validationMs: number; emptyBody?: unknown },
): Promise<z.output<Schema>> {
  const text = decodeUtf8(await readBodyBytes(request, limitBytes));
  if (text === "" && emptyBody !== undefined) return validateOrThrow(schema, emptyBody, "body");
  const parsed = parseJsonBody(text);
  if (!parsed.ok) throw new AppError("VALIDATION_FAILED", "Malformed request body", parsed.body);
  const tooLarge = refuseTooLarge?.(parsed.value);
  if (tooLarge !== undefined) throw new AppError("PAYLOAD_TOO_LARGE", tooLarge);
  // JSON holds a NUL only as the escape \u0000: without one there is nothing to strip, and copying
  // every value of a body of a million sections to find none took 2 s.
  const value = text.includes("\\u0000") ? stripNulCharacters(parsed.value) : parsed.value;
  // Validation costs what the body's shape makes it cost (a million metadata keys: seconds).
  try {
    return validateOrThrow(schema, value, "body", performance.now() + validationMs);
  } catch (error) {
    if (!(error instanceof ValidationTimeoutError)) throw error;
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `Validating the request body took longer than ${validationMs / 1000} s; nothing was stored. Send a smaller body.`,
    );
  }
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 text of a body (a leading byte-order mark is dropped), or the original's 400 for other bytes. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new HttpError(400, "There was an error parsing the body");
  }
}

/** Validates path parameters the way FastAPI does: a fault is a 422 item at `["path", <name>]`. */
export function readPathParams<Schema extends z.ZodType>(params: unknown, schema: Schema): z.output<Schema> {
  return validateOrThrow(schema, params, "path");
}

/**
 * Validates the query string the way FastAPI does: a fault is a 422 item at `["query", <name>]`. A
 * parameter given twice counts with its last value; unknown parameters are ignored.
 */
export function readQueryParams<Schema extends z.ZodType>(request: Request, schema: Schema): z.output<Schema> {
  // NUL stays in: the schemas refuse it with a 422 at its parameter (docs/decisions.md).
  return validateOrThrow(schema, Object.fromEntries(new URL(request.url).searchParams), "query");
}

/** One request part (body, path or query) against its schema; faults become the FastAPI-shaped 422. */
function validateOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  part: "body" | "path" | "query",
  deadline?: number,
): z.output<Schema> {
  const validated = validateBody(schema, value, { locPrefix: [part], deadline });
  if (!validated.ok) throw new AppError("VALIDATION_FAILED", `Invalid request ${part}`, validated.body);
  return validated.data;
}

/**
 * The raw body, refused with 413 as soon as it is known to exceed the limit, and with 408 when it
 * stops arriving (a Content-Length longer than what the client sends would otherwise hold the
 * request, and a database connection, until the socket dies).
 */
export async function readBodyBytes(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) throw bodyTooLarge(limitBytes);
  if (!request.body) return new Uint8Array();
  const idleTimeoutMs = webEnv().SVC_BODY_IDLE_TIMEOUT_MS;
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await readWithin(reader, idleTimeoutMs);
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel();
      throw bodyTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The next chunk, or a 408 when none comes within the deadline (the connection is closed after it). */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  timeoutMs: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const read = reader.read();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HttpError(408, "Request body timed out", { connection: "close" })),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([read, deadline]);
  } catch (error) {
    // The abandoned read settles when the connection closes; nothing waits for it any more.
    read.catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function bodyTooLarge(limitBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than the limit of ${limitBytes} bytes.`);
}
