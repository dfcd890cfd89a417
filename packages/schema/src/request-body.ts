import type { z } from "zod";
import { locateJsonSyntaxError } from "./json-syntax";
import { pydanticErrors } from "./pydantic-errors";
import { exceedsJsonDepth, mapJsonStrings } from "./json-value";
import { validateBefore } from "./validation-deadline";
import { toValidationErrorBody, type Loc, type ValidationErrorBody } from "./validation-error";

export type ParseJsonBodyResult = { ok: true; value: unknown } | { ok: false; body: ValidationErrorBody };
export type ValidateBodyResult<Output> = { ok: true; data: Output } | { ok: false; body: ValidationErrorBody };

/** FastAPI's answer to a request without a body (or with the body `null`). */
function missingBody(locPrefix: Loc): ValidationErrorBody {
  const missing = pydanticErrors.missing();
  return { detail: [{ type: missing.type, loc: locPrefix, msg: missing.msg, input: null }] };
}

/** The answer to a body nested deeper than MAX_JSON_DEPTH (the body is not echoed back). */
function tooDeepBody(): ValidationErrorBody {
  const error = pydanticErrors.valueError("JSON nested too deeply");
  return {
    detail: [{ type: error.type, loc: ["body"], msg: error.msg, input: null }],
  };
}

/**
 * Parses a request body as FastAPI does: an empty body is `missing` at `["body"]`; text that is not
 * JSON is one `json_invalid` item at `["body", <character offset>]` with Python's reason in
 * `ctx.error` (e.g. "Expecting value"). The offset is where Python's parser stops; when that cannot
 * be told, V8's "at position N", else the end of the text. JSON nested deeper than MAX_JSON_DEPTH
 * is a `value_error` at `["body"]`: V8 parses any depth, but validating, storing or echoing such a
 * value would recurse that deep.
 */
export function parseJsonBody(text: string): ParseJsonBodyResult {
  if (text === "") return { ok: false, body: missingBody(["body"]) };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const located = locateJsonSyntaxError(text);
    const reason = error instanceof Error ? error.message : String(error);
    const position = located?.position ?? v8Position(reason) ?? [...text].length;
    const invalid = pydanticErrors.jsonInvalid(located?.message ?? reason);
    return {
      ok: false,
      body: { detail: [{ type: invalid.type, loc: ["body", position], msg: invalid.msg, input: {}, ctx: invalid.ctx }] },
    };
  }
  if (exceedsJsonDepth(value)) return { ok: false, body: tooDeepBody() };
  return { ok: true, value };
}

function v8Position(message: string): number | null {
  const match = /at position (\d+)/.exec(message);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * Validates a parsed body against a schema; on failure, the 422 body FastAPI would send. A `null`
 * body counts as missing, as in FastAPI. With `deadline` (a `performance.now()` time), validation
 * still running then stops with ValidationTimeoutError.
 */
export function validateBody<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  options: { locPrefix?: Loc; deadline?: number } = {},
): ValidateBodyResult<z.output<Schema>> {
  const locPrefix = options.locPrefix ?? ["body"];
  if (value === null || value === undefined) return { ok: false, body: missingBody(locPrefix) };
  const result = validateBefore(options.deadline, () => schema.safeParse(value, { reportInput: true }));
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, body: toValidationErrorBody(result.error.issues, { locPrefix, input: value }) };
}

/**
 * Removes every NUL character from the strings and object keys of a parsed JSON value (Postgres
 * text cannot hold them). Returns a new value; the input is not changed. Iterative: any depth.
 */
export function stripNulCharacters(value: unknown): unknown {
  return mapJsonStrings(value, (text) => (text.includes("\u0000") ? text.replaceAll("\u0000", "") : text));
}
