/**
 * The error kinds of pydantic v2 that this service reproduces, with pydantic's own wording, so that
 * a 422 from here reads exactly like one from the original FastAPI service.
 */
export interface PydanticError {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

/** Most items a 422 lists; past it, one more item says how many were left out. */
export const MAX_VALIDATION_ERROR_ITEMS = 100;
/** The type of that last item, and of a list's validation stopped early (svc's own, not pydantic's). */
export const TOO_MANY_ERRORS_TYPE = "too_many_errors";

/** Key under which a zod custom issue's `params` carry the pydantic error it stands for. */
export const PYDANTIC_PARAM = "pydantic";

/** Pydantic's rendering of a set of allowed values: `'a', 'b' or 'c'`. */
export function formatExpected(values: readonly unknown[]): string {
  const rendered = values.map((value) => (typeof value === "string" ? `'${value}'` : String(value)));
  if (rendered.length <= 1) return rendered.join("");
  return `${rendered.slice(0, -1).join(", ")} or ${rendered[rendered.length - 1]}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** A numeric bound's error: pydantic names the bound in its message and again in `ctx`. */
function boundError(type: string, relation: string, key: "ge" | "gt" | "le" | "lt", bound: number): PydanticError {
  return { type, msg: `Input should be ${relation} ${bound}`, ctx: { [key]: bound } };
}

export const pydanticErrors = {
  missing: (): PydanticError => ({ type: "missing", msg: "Field required" }),
  stringType: (): PydanticError => ({ type: "string_type", msg: "Input should be a valid string" }),
  stringUnicode: (): PydanticError => ({
    type: "string_unicode",
    msg: "Input should be a valid string, unable to parse raw data as a unicode string",
  }),
  stringTooLong: (maxLength: number): PydanticError => ({
    type: "string_too_long",
    msg: `String should have at most ${plural(maxLength, "character")}`,
    ctx: { max_length: maxLength },
  }),
  stringTooShort: (minLength: number): PydanticError => ({
    type: "string_too_short",
    msg: `String should have at least ${plural(minLength, "character")}`,
    ctx: { min_length: minLength },
  }),
  intType: (): PydanticError => ({ type: "int_type", msg: "Input should be a valid integer" }),
  intParsing: (): PydanticError => ({
    type: "int_parsing",
    msg: "Input should be a valid integer, unable to parse string as an integer",
  }),
  intFromFloat: (): PydanticError => ({
    type: "int_from_float",
    msg: "Input should be a valid integer, got a number with a fractional part",
  }),
  greaterThanEqual: (ge: number): PydanticError => boundError("greater_than_equal", "greater than or equal to", "ge", ge),
  greaterThan: (gt: number): PydanticError => boundError("greater_than", "greater than", "gt", gt),
  lessThanEqual: (le: number): PydanticError => boundError("less_than_equal", "less than or equal to", "le", le),
  lessThan: (lt: number): PydanticError => boundError("less_than", "less than", "lt", lt),
  floatType: (): PydanticError => ({ type: "float_type", msg: "Input should be a valid number" }),
  boolType: (): PydanticError => ({ type: "bool_type", msg: "Input should be a valid boolean" }),
  boolParsing: (): PydanticError => ({
    type: "bool_parsing",
    msg: "Input should be a valid boolean, unable to interpret input",
  }),
  listType: (): PydanticError => ({ type: "list_type", msg: "Input should be a valid list" }),
  tooShort: (minLength: number, actualLength: number): PydanticError => ({
    type: "too_short",
    msg: `List should have at least ${plural(minLength, "item")} after validation, not ${actualLength}`,
    ctx: { field_type: "List", min_length: minLength, actual_length: actualLength },
  }),
  tooLong: (maxLength: number, actualLength: number): PydanticError => ({
    type: "too_long",
    msg: `List should have at most ${plural(maxLength, "item")} after validation, not ${actualLength}`,
    ctx: { field_type: "List", max_length: maxLength, actual_length: actualLength },
  }),
  dictType: (): PydanticError => ({ type: "dict_type", msg: "Input should be a valid dictionary" }),
  // FastAPI validates bodies with `from_attributes=True`, so a non-object where a model belongs is
  // `model_attributes_type`, not plain pydantic's `model_type`.
  modelType: (): PydanticError => ({
    type: "model_attributes_type",
    msg: "Input should be a valid dictionary or object to extract fields from",
  }),
  enum: (values: readonly unknown[]): PydanticError => {
    const expected = formatExpected(values);
    return { type: "enum", msg: `Input should be ${expected}`, ctx: { expected } };
  },
  datetimeType: (): PydanticError => ({ type: "datetime_type", msg: "Input should be a valid datetime" }),
  datetimeParsing: (error: string): PydanticError => ({
    type: "datetime_parsing",
    msg: `Input should be a valid datetime, ${error}`,
    ctx: { error },
  }),
  // Lax pydantic retries a failed date-time as a date and reports the date parser's reason.
  datetimeFromDateParsing: (error: string): PydanticError => ({
    type: "datetime_from_date_parsing",
    msg: `Input should be a valid datetime or date, ${error}`,
    ctx: { error },
  }),
  jsonInvalid: (error: string): PydanticError => ({ type: "json_invalid", msg: "JSON decode error", ctx: { error } }),
  valueError: (message: string): PydanticError => ({ type: "value_error", msg: `Value error, ${message}` }),
  extraForbidden: (): PydanticError => ({ type: "extra_forbidden", msg: "Extra inputs are not permitted" }),
  validationStopped: (checked: number, invalid: number, length: number): PydanticError => ({
    type: TOO_MANY_ERRORS_TYPE,
    msg: `Validation stopped: ${invalid} of the first ${checked} items are invalid; the other ${length - checked} were not checked`,
    ctx: { max_errors: MAX_VALIDATION_ERROR_ITEMS, unchecked_items: length - checked },
  }),
};
