/**
 * Field builders for request schemas that validate the way pydantic v2 does in lax mode (the
 * original service is FastAPI), and whose every failure is a zod custom issue carrying the exact
 * pydantic error in `params` (see `toValidationErrorBody`). Each builder checks and coerces in a
 * `z.preprocess` step, then hands a well-typed value to an ordinary zod schema, which gives the
 * output type and the JSON Schema (`z.toJSONSchema(…, { io: "input" })` shows that inner schema).
 *
 * A key that is absent reaches the preprocess step as `undefined` and is reported as `missing`;
 * wrap a builder in `.optional()`/`.nullable()`/`.default()` for fields that may be left out or null.
 */
import { z } from "zod";
import { dateTimeFaults, parseDateTime } from "./parse-date-time";
import { findLoneSurrogate, hasLoneSurrogate } from "./json-value";
import { MAX_VALIDATION_ERROR_ITEMS, PYDANTIC_PARAM, pydanticErrors, type PydanticError } from "./pydantic-errors";
import { checkValidationDeadline } from "./validation-deadline";

/** PostgreSQL int4, the type of every integer column and parameter the service stores or compares. */
export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;

/** A refusal is reported at the field itself, or at `path` inside it (a dict key) with that `input`. */
type Coercion =
  | { ok: true; value: unknown }
  | { ok: false; error: PydanticError; inside?: { path: PropertyKey[]; input: unknown } };

const accept = (value: unknown): Coercion => ({ ok: true, value });
const reject = (error: PydanticError, inside?: { path: PropertyKey[]; input: unknown }): Coercion => ({
  ok: false,
  error,
  inside,
});

/** A zod custom issue standing for one pydantic error; `input` travels in `params` so the 422 body
 * has it even when the parse did not ask zod to report inputs. */
export function pydanticIssue(
  error: PydanticError,
  input: unknown,
  path: PropertyKey[] = [],
): z.core.$ZodRawIssue {
  return { code: "custom", message: error.msg, path, input, params: { [PYDANTIC_PARAM]: error, input } };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Length in code points, as Python's `len` counts. */
function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

function pydanticField<Inner extends z.ZodType>(coerce: (value: unknown) => Coercion, inner: Inner) {
  return z.preprocess((value: unknown, ctx) => {
    checkValidationDeadline();
    if (value === undefined) {
      ctx.addIssue(pydanticIssue(pydanticErrors.missing(), value));
      return z.NEVER;
    }
    const coerced = coerce(value);
    if (!coerced.ok) {
      const { inside } = coerced;
      ctx.addIssue(inside ? pydanticIssue(coerced.error, inside.input, inside.path) : pydanticIssue(coerced.error, value));
      return z.NEVER;
    }
    return coerced.value;
  }, inner);
}

/**
 * `str`: only strings (pydantic does not turn numbers into strings); lengths in code points. A lone
 * UTF-16 surrogate (JSON `"\ud800"`) is pydantic's `string_unicode`: Python cannot encode it, and
 * PostgreSQL cannot store it.
 */
export function pyString(options: { minLength?: number; maxLength?: number } = {}) {
  const { minLength, maxLength } = options;
  let inner = z.string();
  if (minLength !== undefined) inner = inner.min(minLength);
  if (maxLength !== undefined) inner = inner.max(maxLength);
  return pydanticField((value) => {
    if (typeof value !== "string") return reject(pydanticErrors.stringType());
    if (hasLoneSurrogate(value)) return reject(pydanticErrors.stringUnicode());
    if (maxLength !== undefined && codePointLength(value) > maxLength) {
      return reject(pydanticErrors.stringTooLong(maxLength));
    }
    if (minLength !== undefined && codePointLength(value) < minLength) {
      return reject(pydanticErrors.stringTooShort(minLength));
    }
    return accept(value);
  }, inner);
}

// Python int() syntax (underscores between digits), plus a zero fraction as pydantic allows.
const INTEGER_STRING = /^\s*([+-]?\d+(?:_\d+)*)(?:\.0+)?\s*$/;

/**
 * `int`, lax: integers, floats without fraction, booleans, and numeric strings such as "5" or "5.0".
 * Bounded by PostgreSQL int4 unless tighter bounds are given (every integer here is stored or compared
 * there); the bounds are in the JSON Schema, so the OpenAPI document shows them.
 */
export function pyInt(options: { ge?: number; le?: number } = {}) {
  const ge = Math.max(options.ge ?? INT4_MIN, INT4_MIN);
  const le = Math.min(options.le ?? INT4_MAX, INT4_MAX);
  const inner = z.int().min(ge).max(le);
  return pydanticField((value) => {
    let number: number;
    if (typeof value === "number") {
      if (!Number.isInteger(value)) return reject(pydanticErrors.intFromFloat());
      number = value;
    } else if (typeof value === "boolean") {
      number = value ? 1 : 0;
    } else if (typeof value === "string") {
      const digits = INTEGER_STRING.exec(value)?.[1];
      if (digits === undefined) return reject(pydanticErrors.intParsing());
      number = Number(digits.replaceAll("_", ""));
    } else {
      return reject(pydanticErrors.intType());
    }
    if (number < ge) return reject(pydanticErrors.greaterThanEqual(ge));
    if (number > le) return reject(pydanticErrors.lessThanEqual(le));
    return accept(number);
  }, inner);
}

const TRUE_STRINGS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_STRINGS = new Set(["0", "off", "f", "false", "n", "no"]);

/** `bool`, lax: booleans, 0/1, and pydantic's strings ("true", "yes", "on", "1", … any case). */
export function pyBool() {
  return pydanticField((value) => {
    if (typeof value === "boolean") return accept(value);
    if (typeof value === "number") {
      if (value === 0 || value === 1) return accept(value === 1);
      return reject(Number.isInteger(value) ? pydanticErrors.boolParsing() : pydanticErrors.boolType());
    }
    if (typeof value === "string") {
      const lowered = value.toLowerCase();
      if (TRUE_STRINGS.has(lowered)) return accept(true);
      if (FALSE_STRINGS.has(lowered)) return accept(false);
      return reject(pydanticErrors.boolParsing());
    }
    return reject(pydanticErrors.boolType());
  }, z.boolean());
}

/**
 * `datetime`, lax (see `parseDateTime`), normalised to a UTC `Date`. The value passes through a
 * canonical ISO string so that the input JSON Schema reads `string, format date-time` (no pattern:
 * more forms are accepted than a pattern would admit).
 */
export function pyDateTime() {
  return pydanticField(
    (value) => {
      if (typeof value !== "string" && typeof value !== "number") return reject(pydanticErrors.datetimeType());
      const parsed = parseDateTime(value);
      if (parsed.ok) return accept(parsed.date.toISOString());
      // A number is never retried as a date; year 0 is refused after the value parsed.
      if (typeof value === "number" || parsed.error === dateTimeFaults.yearZero) return reject(pydanticErrors.datetimeParsing(parsed.error));
      return reject(pydanticErrors.datetimeFromDateParsing(parsed.error));
    },
    z
      .string()
      .meta({ format: "date-time" })
      .transform((text) => new Date(text)),
  );
}

/** A str-valued enum: any other value (of any type) is pydantic's `enum` error. */
export function pyEnum<Schema extends z.ZodEnum>(schema: Schema) {
  const values: readonly unknown[] = schema.options;
  return pydanticField(
    (value) => (values.includes(value) ? accept(value) : reject(pydanticErrors.enum(values))),
    schema,
  );
}

/**
 * `list[T]`. With `asSet` (the original's `set[str]`, which the contract publishes as an array of
 * unique items) repeats are merged, keeping the first, as a Python set would: never a 422. With
 * `minLength`, a shorter list is `too_short` (pydantic's `min_length`); with `maxLength`, a longer one
 * is `too_long` (`max_length`).
 */
export function pyList<Item extends z.ZodType>(item: Item, options: { asSet?: boolean; minLength?: number; maxLength?: number } = {}) {
  const { maxLength } = options;
  const bounded = maxLength === undefined ? z.array(item) : z.array(item).max(maxLength);
  const array = options.minLength === undefined ? bounded : bounded.min(options.minLength);
  const inner = options.asSet
    ? array
        .transform((items) => {
          const seen = new Set<string>();
          return items.filter((element) => {
            const key = JSON.stringify(element) ?? String(element);
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
        })
        .meta({ uniqueItems: true })
    : array;
  // A list past its limit is refused on its length alone, before any item is validated: its items
  // are the cost the limit exists to avoid.
  const list = pydanticField((value) => {
    if (!Array.isArray(value)) return reject(pydanticErrors.listType());
    if (maxLength !== undefined && value.length > maxLength) return reject(pydanticErrors.tooLong(maxLength, value.length));
    return accept(value);
  }, inner);
  return z.preprocess((value: unknown, ctx) => stopWhenMostlyInvalid(item, value, ctx), list);
}

/** Items of a long list checked first, on their own, to tell one mostly invalid. */
const PRESCANNED_ITEMS = 2 * MAX_VALIDATION_ERROR_ITEMS;

/**
 * A 422 lists at most MAX_VALIDATION_ERROR_ITEMS items, yet validating every item of a long list
 * of invalid ones would cost far more than the answer shows (100,000 invalid sections: seconds of
 * CPU). So a long list whose first PRESCANNED_ITEMS items hold that many invalid ones is reported
 * from those alone, with one `too_many_errors` item saying the rest was not checked. Lists of
 * valid items (or with a few bad ones) are validated whole, as before; the extra cost is bounded.
 */
function stopWhenMostlyInvalid(item: z.ZodType, value: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (!Array.isArray(value) || value.length <= PRESCANNED_ITEMS) return value;
  const issues: z.core.$ZodIssue[] = [];
  let invalid = 0;
  for (let index = 0; index < PRESCANNED_ITEMS; index += 1) {
    const result = item.safeParse(value[index], { reportInput: true });
    if (result.success) continue;
    invalid += 1;
    for (const issue of result.error.issues) issues.push({ ...issue, path: [index, ...issue.path] });
  }
  if (invalid < MAX_VALIDATION_ERROR_ITEMS) return value;
  for (const issue of issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
  ctx.addIssue(pydanticIssue(pydanticErrors.validationStopped(PRESCANNED_ITEMS, invalid, value.length), null));
  return z.NEVER;
}

/** `dict[str, V]`: any JSON object; its values validated by `value`. A key holding a lone surrogate is
 * `string_unicode` at `[…, key, "[key]"]`, where pydantic reports a key. */
export function pyDict<Value extends z.ZodType>(value: Value) {
  return pydanticField((input) => {
    if (!isPlainObject(input)) return reject(pydanticErrors.dictType());
    const badKey = Object.keys(input).find(hasLoneSurrogate);
    if (badKey === undefined) return accept(input);
    return reject(pydanticErrors.stringUnicode(), { path: [badKey, "[key]"], input: badKey });
  }, z.record(z.string(), value));
}

/**
 * `Any` that ends up in a jsonb column: any JSON value, as long as no string or key in it holds a
 * lone surrogate (`string_unicode` at that string's path, or at `[…, key, "[key]"]` for a key).
 */
export function pyJson() {
  return z.preprocess((input: unknown, ctx) => {
    checkValidationDeadline();
    const found = findLoneSurrogate(input);
    if (found) {
      const path = found.inKey ? [...found.path, "[key]"] : found.path;
      ctx.addIssue(pydanticIssue(pydanticErrors.stringUnicode(), found.text, path));
      return z.NEVER;
    }
    return input;
  }, z.unknown());
}

/**
 * `dict[Enum, V]`: keys outside the enum are pydantic's `enum` error at `[…, key, "[key]"]`, all
 * reported together; values are validated once the keys are right. Typed with `string` keys: the keys
 * are data (enum values such as `google_drive`), which `Camel<T>` (wire-case.ts) would rename were they
 * literal keys of the type; the schema still admits only the enum's.
 */
export function pyEnumKeyDict<Key extends z.ZodEnum, Value extends z.ZodType>(key: Key, value: Value) {
  const keys: readonly unknown[] = key.options;
  const record: z.ZodType<Partial<Record<string, z.output<Value>>>> = z.partialRecord(key, value);
  return z.preprocess(
    (input: unknown, ctx) => {
      if (input === undefined) {
        ctx.addIssue(pydanticIssue(pydanticErrors.missing(), input));
        return z.NEVER;
      }
      if (!isPlainObject(input)) {
        ctx.addIssue(pydanticIssue(pydanticErrors.dictType(), input));
        return z.NEVER;
      }
      const badKeys = Object.keys(input).filter((candidate) => !keys.includes(candidate));
      for (const badKey of badKeys) ctx.addIssue(pydanticIssue(pydanticErrors.enum(keys), badKey, [badKey, "[key]"]));
      return badKeys.length > 0 ? z.NEVER : input;
    },
    record,
  );
}

/**
 * A pydantic model: a JSON object (anything else is `model_attributes_type`, as FastAPI answers); unknown keys are dropped. The
 * class name becomes the JSON Schema title, as in FastAPI's OpenAPI document.
 */
export function pyModel<Shape extends z.ZodRawShape>(className: string, shape: Shape) {
  return pydanticField(
    (value) => (isPlainObject(value) ? accept(value) : reject(pydanticErrors.modelType())),
    z.object(shape),
  ).meta({ title: className });
}
