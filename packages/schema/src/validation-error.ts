import { z } from "zod";
import { MAX_VALIDATION_ERROR_ITEMS, PYDANTIC_PARAM, pydanticErrors, TOO_MANY_ERRORS_TYPE, type PydanticError } from "./pydantic-errors";
import { isPlainObject } from "./pydantic-fields";

export const ValidationErrorSchema = z.object({
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  type: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});
export type ValidationError = z.infer<typeof ValidationErrorSchema>;

/** The body of every 422: FastAPI's shape, one item per fault. */
export const HTTPValidationErrorSchema = z.object({
  detail: z.array(ValidationErrorSchema).optional(),
});
export type HTTPValidationError = z.infer<typeof HTTPValidationErrorSchema>;
/** A 422 body as this package builds it: `detail` always present. */
export type ValidationErrorBody = Required<HTTPValidationError>;

export type Loc = Array<string | number>;

export interface ToValidationErrorBodyOptions {
  /** Prepended to every issue path; FastAPI's is `["body"]` for request bodies. */
  locPrefix?: Loc;
  /** The value that was validated: where `input` comes from when an issue does not carry it, and
   * the parent object that pydantic shows as the `input` of a `missing` field. */
  input?: unknown;
}

/**
 * Turns zod issues into the 422 body FastAPI/pydantic v2 would send. Issues raised by this
 * package's request schemas carry their pydantic error in `params` and are taken as they are;
 * plain zod issues (from schemas built without the `py*` builders) are translated by code.
 */
export function toValidationErrorBody(
  issues: readonly z.core.$ZodIssue[],
  options: ToValidationErrorBodyOptions = {},
): ValidationErrorBody {
  const locPrefix = options.locPrefix ?? ["body"];
  const detail = issues.flatMap((issue) => translateIssue(issue, [], locPrefix, options.input));
  return boundValidationErrorBody({ detail: dedupe(detail) });
}

/** Characters of an echoed `input` (strings, keys and structure together) and of a `loc` part. */
export const MAX_ECHOED_INPUT_CHARS = 256;
/** Characters of a `msg` and of each string in `ctx`: svc's own text, but it may quote the input (a union's tag). */
const MAX_MESSAGE_CHARS = 2000;
/** Items an echoed list or object keeps; a container nested deeper than MAX_ECHOED_INPUT_DEPTH becomes "…". */
export const MAX_ECHOED_INPUT_ITEMS = 10;
export const MAX_ECHOED_INPUT_DEPTH = 5;
/** The JSON size a 422 body stays under, whatever the request (items stop being added before it). */
export const MAX_VALIDATION_ERROR_BODY_BYTES = 64 * 1024;

const ELLIPSIS = "…";
const UTF8 = new TextEncoder();

/**
 * Bounds a 422 body so that it cannot answer a small request with a huge one: each item's `input`
 * and `loc` parts are cut (docs/decisions.md "Limits and overload"), at most
 * MAX_VALIDATION_ERROR_ITEMS items are kept while the body stays under
 * MAX_VALIDATION_ERROR_BODY_BYTES, and one last `too_many_errors` item counts those left out (a
 * summary item passed in keeps its `loc`, `msg` and `ctx`, its `omitted` grown by those cut here).
 * Bounding a bounded body changes nothing.
 */
export function boundValidationErrorBody(body: ValidationErrorBody): ValidationErrorBody {
  const last = body.detail.at(-1);
  // A list whose validation stopped early says so with the same type, but counts no left-out errors.
  const summary = last?.type === TOO_MANY_ERRORS_TYPE && typeof last.ctx?.omitted === "number" ? last : undefined;
  const items = summary ? body.detail.slice(0, -1) : body.detail;
  const alreadyOmitted = summary ? Number(summary.ctx?.omitted) : 0;
  // Room for the envelope and the summary item.
  let bytes = 512;
  const kept: ValidationError[] = [];
  for (const item of items) {
    if (kept.length >= MAX_VALIDATION_ERROR_ITEMS) break;
    const bounded = boundItem(item);
    const size = UTF8.encode(JSON.stringify(bounded)).byteLength;
    if (bytes + size > MAX_VALIDATION_ERROR_BODY_BYTES) break;
    bytes += size + 1;
    kept.push(bounded);
  }
  const omitted = alreadyOmitted + items.length - kept.length;
  if (summary) return { detail: [...kept, { ...summary, ctx: { ...summary.ctx, max_errors: MAX_VALIDATION_ERROR_ITEMS, omitted } }] };
  if (omitted === 0) return { detail: kept };
  return {
    detail: [
      ...kept,
      {
        type: TOO_MANY_ERRORS_TYPE,
        loc: [],
        msg: `${omitted} more error${omitted === 1 ? "" : "s"} left out; a 422 lists at most ${MAX_VALIDATION_ERROR_ITEMS}`,
        input: null,
        ctx: { max_errors: MAX_VALIDATION_ERROR_ITEMS, omitted },
      },
    ],
  };
}

function boundItem(item: ValidationError): ValidationError {
  const bounded: ValidationError = {
    ...item,
    loc: item.loc.slice(0, 2 * MAX_ECHOED_INPUT_ITEMS).map((part) => (typeof part === "string" ? cutText(part, MAX_ECHOED_INPUT_CHARS) : part)),
    msg: cutText(item.msg, MAX_MESSAGE_CHARS),
  };
  if ("input" in item) bounded.input = cutInput(item.input, { left: MAX_ECHOED_INPUT_CHARS }, 0);
  if (item.ctx) {
    const ctx = Object.entries(item.ctx).map(([key, value]) => [key, typeof value === "string" ? cutText(value, MAX_MESSAGE_CHARS) : value]);
    bounded.ctx = Object.fromEntries(ctx) as Record<string, unknown>;
  }
  return bounded;
}

function cutText(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, Math.max(0, length - 1))}${ELLIPSIS}`;
}

/**
 * A JSON value cut to a budget of characters shared by all its strings, keys and brackets, with at
 * most MAX_ECHOED_INPUT_ITEMS items per list or object, MAX_ECHOED_INPUT_DEPTH levels deep.
 */
function cutInput(value: unknown, budget: { left: number }, depth: number): unknown {
  if (typeof value === "string") {
    const text = cutText(value, Math.max(1, budget.left));
    budget.left -= text.length + 2;
    return text;
  }
  if (value === null || typeof value !== "object") {
    budget.left -= 8;
    return value;
  }
  if (depth >= MAX_ECHOED_INPUT_DEPTH) {
    budget.left -= 3;
    return ELLIPSIS;
  }
  budget.left -= 2;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const element of value.slice(0, MAX_ECHOED_INPUT_ITEMS)) {
      if (budget.left <= 0) break;
      items.push(cutInput(element, budget, depth + 1));
    }
    return items;
  }
  const entries: Array<[string, unknown]> = [];
  // for…in stops early: an object of a million keys is not copied to keep ten.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (budget.left <= 0 || entries.length >= MAX_ECHOED_INPUT_ITEMS) break;
    const cutKey = cutText(key, Math.max(1, budget.left));
    budget.left -= cutKey.length + 3;
    entries.push([cutKey, cutInput((value as Record<string, unknown>)[key], budget, depth + 1)]);
  }
  return Object.fromEntries(entries);
}

function translateIssue(issue: z.core.$ZodIssue, basePath: PropertyKey[], locPrefix: Loc, root: unknown): ValidationError[] {
  const path = [...basePath, ...issue.path];
  const loc = [...locPrefix, ...path.map(toLocPart)];
  const inputOf = (): unknown => ("input" in issue ? issue.input : valueAt(root, path));
  const item = (error: PydanticError, input: unknown, at: Loc = loc): ValidationError => ({
    type: error.type,
    loc: at,
    msg: error.msg,
    input: input === undefined ? null : input,
    ...(error.ctx ? { ctx: error.ctx } : {}),
  });
  const missing = (): ValidationError => item(pydanticErrors.missing(), parentOf(root, path));

  switch (issue.code) {
    case "custom": {
      const params: Record<string, unknown> = issue.params ?? {};
      const carried = params[PYDANTIC_PARAM];
      if (isPydanticError(carried)) {
        if (carried.type === "missing") {
          // A union member's missing field names its parent itself (see section.ts).
          return "parent" in params ? [item(carried, params.parent)] : [missing()];
        }
        return [item(carried, "input" in params ? params.input : inputOf())];
      }
      return [item(pydanticErrors.valueError(issue.message), inputOf())];
    }
    case "invalid_type": {
      const input = inputOf();
      if (input === undefined || issue.expected === "nonoptional") return [missing()];
      return [item(typeError(issue.expected, input), input)];
    }
    case "too_big": {
      const maximum = Number(issue.maximum);
      const input = inputOf();
      if (issue.origin === "string") return [item(pydanticErrors.stringTooLong(maximum), input)];
      if (issue.origin === "array" && Array.isArray(input)) {
        return [item(pydanticErrors.tooLong(maximum, input.length), input)];
      }
      const error = issue.inclusive === false ? pydanticErrors.lessThan(maximum) : pydanticErrors.lessThanEqual(maximum);
      return [item(error, input)];
    }
    case "too_small": {
      const minimum = Number(issue.minimum);
      const input = inputOf();
      if (issue.origin === "string") return [item(pydanticErrors.stringTooShort(minimum), input)];
      if (issue.origin === "array" && Array.isArray(input)) {
        return [item(pydanticErrors.tooShort(minimum, input.length), input)];
      }
      const error =
        issue.inclusive === false ? pydanticErrors.greaterThan(minimum) : pydanticErrors.greaterThanEqual(minimum);
      return [item(error, input)];
    }
    case "invalid_value":
      return [item(pydanticErrors.enum(issue.values), inputOf())];
    case "invalid_format": {
      const input = inputOf();
      if (issue.format === "datetime") return [item(pydanticErrors.datetimeParsing("invalid datetime format"), input)];
      if (issue.pattern) {
        return [
          item(
            { type: "string_pattern_mismatch", msg: `String should match pattern '${issue.pattern}'`, ctx: { pattern: issue.pattern } },
            input,
          ),
        ];
      }
      return [item(pydanticErrors.valueError(issue.message), input)];
    }
    case "not_multiple_of":
      return [
        item(
          { type: "multiple_of", msg: `Input should be a multiple of ${issue.divisor}`, ctx: { multiple_of: issue.divisor } },
          inputOf(),
        ),
      ];
    case "unrecognized_keys": {
      const container = inputOf();
      return issue.keys.map((key) =>
        item(pydanticErrors.extraForbidden(), isPlainObject(container) ? container[key] : null, [...loc, key]),
      );
    }
    case "invalid_union": {
      if (issue.discriminator !== undefined) {
        // zod points at the discriminator key; pydantic at the union itself, with the whole object.
        const unionPath = path.slice(0, -1);
        const unionLoc = [...locPrefix, ...unionPath.map(toLocPart)];
        const tagged = valueAt(root, unionPath);
        const tagValue = isPlainObject(tagged) ? tagged[issue.discriminator] : undefined;
        const tag = typeof tagValue === "string" ? tagValue : JSON.stringify(tagValue);
        const options = "options" in issue ? (issue.options ?? []) : [];
        const expectedTags = options.map((option) => `'${String(option)}'`).join(", ");
        const error: PydanticError =
          tagValue === undefined
            ? {
                type: "union_tag_not_found",
                msg: `Unable to extract tag using discriminator '${issue.discriminator}'`,
                ctx: { discriminator: `'${issue.discriminator}'` },
              }
            : {
                type: "union_tag_invalid",
                msg: `Input tag '${tag}' found using '${issue.discriminator}' does not match any of the expected tags: ${expectedTags}`,
                ctx: { discriminator: `'${issue.discriminator}'`, tag, expected_tags: expectedTags },
              };
        return [item(error, tagged, unionLoc)];
      }
      // Like pydantic, report what every member objected to.
      const nested = issue.errors.flatMap((branch) =>
        branch.flatMap((inner) => translateIssue(inner, path, locPrefix, root)),
      );
      return nested.length > 0 ? nested : [item(pydanticErrors.valueError(issue.message), inputOf())];
    }
    case "invalid_key": {
      const key = inputOf();
      return issue.issues.flatMap((inner) =>
        translateIssue({ ...inner, input: key } as z.core.$ZodIssue, [], [...loc, "[key]"], key),
      );
    }
    case "invalid_element":
      return issue.issues.flatMap((inner) => translateIssue(inner, path, locPrefix, root));
    default: {
      // Issue codes added by later zod versions.
      const unknownIssue: z.core.$ZodIssueBase = issue;
      return [item(pydanticErrors.valueError(unknownIssue.message), inputOf())];
    }
  }
}

/** zod says only what it expected (a `z.int()` given a string expects "number"); the py* builders
 * exist because this cannot always recover pydantic's exact type. */
function typeError(expected: string, input: unknown): PydanticError {
  switch (expected) {
    case "string":
      return pydanticErrors.stringType();
    case "int":
    case "bigint":
      return typeof input === "number" ? pydanticErrors.intFromFloat() : pydanticErrors.intType();
    case "number":
      return typeof input === "string"
        ? { type: "float_parsing", msg: "Input should be a valid number, unable to parse string as a number" }
        : pydanticErrors.floatType();
    case "boolean":
      return pydanticErrors.boolType();
    case "array":
    case "tuple":
    case "set":
      return pydanticErrors.listType();
    case "object":
    case "record":
    case "map":
      return pydanticErrors.dictType();
    case "date":
      return pydanticErrors.datetimeType();
    default:
      return pydanticErrors.valueError(`expected ${expected}`);
  }
}

function isPydanticError(value: unknown): value is PydanticError {
  return isPlainObject(value) && typeof value.type === "string" && typeof value.msg === "string";
}

function toLocPart(part: PropertyKey): string | number {
  return typeof part === "number" ? part : String(part);
}

/** Follows `path` into a parsed JSON value; undefined when it leads nowhere. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const part of path) {
    if (Array.isArray(current) && typeof part === "number") current = current[part];
    else if (isPlainObject(current) && typeof part !== "symbol" && Object.hasOwn(current, part)) {
      current = current[String(part)];
    } else return undefined;
  }
  return current;
}

/** The object a missing field was looked up in (pydantic's `input` for `missing`); null for the root. */
function parentOf(root: unknown, path: readonly PropertyKey[]): unknown {
  if (path.length === 0) return null;
  return valueAt(root, path.slice(0, -1)) ?? null;
}

/** Union members can object to the same thing twice; keep each fault once. */
function dedupe(items: ValidationError[]): ValidationError[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify([item.type, item.loc]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
