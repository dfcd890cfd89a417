export type DateTimeParseResult = { ok: true; date: Date } | { ok: false; error: string };

/** Beyond this many seconds a number is read as milliseconds, as pydantic does. */
const MILLISECOND_THRESHOLD = 2e10;
/** Python's datetime range: 0001-01-01 to 9999-12-31T23:59:59.999. */
const MIN_EPOCH_MS = -62_135_596_800_000;
const MAX_EPOCH_MS = 253_402_300_799_999;

const NUMERIC_TIMESTAMP = /^[+-]?\d+(\.\d+)?$/;
const DATE_TIME_SEPARATORS = new Set(["T", "t", " ", "_"]);

/**
 * Reads a date-time the way pydantic v2 (lax mode) does: `YYYY-MM-DD[T HH:MM[:SS[.f…]][Z|±HH[:]MM]]`,
 * a date alone (midnight), or a Unix timestamp (number or numeric string; seconds, or milliseconds
 * when larger than 2e10). A value without offset is taken as UTC. The result is a UTC instant.
 * Fraction digits beyond milliseconds are dropped. An offset of hours alone (`+05`, valid ISO 8601)
 * is accepted, which pydantic refuses. Error texts follow pydantic's parser.
 */
export function parseDateTime(input: string | number): DateTimeParseResult {
  if (typeof input === "number") return fromTimestamp(input);
  if (NUMERIC_TIMESTAMP.test(input)) return fromTimestamp(Number(input));
  return parseIsoDateTime(input);
}

/**
 * Why pydantic's date parser refuses `text`: lax pydantic retries a date-time it cannot parse as a
 * date, and a 422 for a string names the date's reason (`datetime_from_date_parsing`). Only the first
 * ten characters can make a date; anything after a valid date is "extra characters". Numeric strings
 * are timestamps, whose own reason stands.
 */
export function dateParsingReason(text: string): string {
  if (NUMERIC_TIMESTAMP.test(text)) {
    const parsed = fromTimestamp(Number(text));
    return parsed.ok ? "" : parsed.error;
  }
  const date = parseIsoDateTime(text.slice(0, 10));
  // Observed on the original (validation-examples.md): a text that does not start with a year, such
  // as "not a date", is reported as too short, not as a bad year.
  if (!date.ok) return date.error === "invalid character in year" ? "input is too short" : date.error;
  return text.length > 10 ? "unexpected extra characters at the end of the input" : "";
}

function fromTimestamp(value: number): DateTimeParseResult {
  if (!Number.isFinite(value)) return { ok: false, error: "invalid timestamp" };
  const milliseconds = Math.abs(value) > MILLISECOND_THRESHOLD ? value : value * 1000;
  if (milliseconds < MIN_EPOCH_MS || milliseconds > MAX_EPOCH_MS) {
    return { ok: false, error: "timestamp value is outside the expected range" };
  }
  return { ok: true, date: new Date(Math.trunc(milliseconds)) };
}

function parseIsoDateTime(text: string): DateTimeParseResult {
  const fail = (error: string): DateTimeParseResult => ({ ok: false, error });
  const digitsAt = (start: number, count: number): number | null => {
    const slice = text.slice(start, start + count);
    return slice.length === count && /^\d+$/.test(slice) ? Number(slice) : null;
  };

  if (text.length < 10) return fail("input is too short");
  const year = digitsAt(0, 4);
  if (year === null) return fail("invalid character in year");
  if (text[4] !== "-") return fail("invalid date separator, expected `-`");
  const month = digitsAt(5, 2);
  if (month === null) return fail("invalid character in month");
  if (text[7] !== "-") return fail("invalid date separator, expected `-`");
  const day = digitsAt(8, 2);
  if (day === null) return fail("invalid character in day");
  if (year < 1) return fail("year value is outside expected range of 1-9999");
  if (month < 1 || month > 12) return fail("month value is outside expected range of 1-12");
  if (day < 1 || day > daysInMonth(year, month)) return fail("day value is outside expected range");
  if (text.length === 10) return { ok: true, date: utcDate(year, month, day, 0, 0, 0, 0, 0) };

  if (!DATE_TIME_SEPARATORS.has(text[10] ?? "")) {
    return fail("invalid datetime separator, expected `T`, `t`, `_` or space");
  }
  if (text.length < 16) return fail("input is too short");
  const hour = digitsAt(11, 2);
  if (hour === null) return fail("invalid character in hour");
  if (text[13] !== ":") return fail("invalid time separator, expected `:`");
  const minute = digitsAt(14, 2);
  if (minute === null) return fail("invalid character in minute");

  let position = 16;
  let second = 0;
  let milliseconds = 0;
  if (text[position] === ":") {
    const parsedSecond = digitsAt(position + 1, 2);
    if (parsedSecond === null) return fail("invalid character in second");
    second = parsedSecond;
    position += 3;
    if (text[position] === "." || text[position] === ",") {
      const fraction = /^\d+/.exec(text.slice(position + 1))?.[0];
      if (!fraction) return fail("invalid character in second fraction");
      milliseconds = Number(fraction.slice(0, 3).padEnd(3, "0"));
      position += 1 + fraction.length;
    }
  }
  if (hour > 23) return fail("hour value is outside expected range of 0-23");
  if (minute > 59) return fail("minute value is outside expected range of 0-59");
  if (second > 59) return fail("second value is outside expected range of 0-59");

  let offsetMinutes = 0;
  const zone = text[position];
  if (zone === "Z" || zone === "z") {
    position += 1;
  } else if (zone === "+" || zone === "-") {
    const offsetHour = digitsAt(position + 1, 2);
    if (offsetHour === null) return fail("invalid timezone hour");
    position += 3;
    if (text[position] === ":") position += 1;
    let offsetMinute = 0;
    if (position < text.length) {
      const parsedMinute = digitsAt(position, 2);
      if (parsedMinute === null) return fail("invalid timezone minute");
      offsetMinute = parsedMinute;
      position += 2;
    }
    if (offsetHour > 23 || offsetMinute > 59) return fail("timezone offset must be less than 24 hours");
    offsetMinutes = (zone === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  } else if (zone !== undefined) {
    return fail("invalid timezone sign");
  }
  if (position !== text.length) return fail("unexpected extra characters at the end of the input");

  return { ok: true, date: utcDate(year, month, day, hour, minute, second, milliseconds, offsetMinutes) };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

function utcDate(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  milliseconds: number,
  offsetMinutes: number,
): Date {
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, milliseconds);
  return date;
}
