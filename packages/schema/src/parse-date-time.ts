export type DateTimeParseResult = { ok: true; date: Date } | { ok: false; error: string };

/**
 * The reasons pydantic 2.11 gives for a value that is not a date-time. Its parser (speedate) stops at
 * the first fault it meets reading left to right and names it with one of these texts.
 */
export const dateTimeFaults = {
  tooShort: "input is too short",
  extraCharacters: "unexpected extra characters at the end of the input",
  year: "invalid character in year",
  dateSeparator: "invalid date separator, expected `-`",
  month: "invalid character in month",
  day: "invalid character in day",
  monthRange: "month value is outside expected range of 1-12",
  dayRange: "day value is outside expected range",
  dateTimeSeparator: "invalid datetime separator, expected `T`, `t`, `_` or space",
  hour: "invalid character in hour",
  timeSeparator: "invalid time separator, expected `:`",
  minute: "invalid character in minute",
  second: "invalid character in second",
  hourRange: "hour value is outside expected range of 0-23",
  minuteRange: "minute value is outside expected range of 0-59",
  secondRange: "second value is outside expected range of 0-59",
  fractionMissing: "second fraction digits missing after `.`",
  zoneSign: "invalid timezone sign",
  zoneHour: "invalid timezone hour",
  zoneMinute: "invalid timezone minute",
  zoneMinuteRange: "timezone minute value is outside expected range of 0-59",
  zoneRange: "timezone offset must be less than 24 hours",
  dateNotExact: "Timestamp is not an exact date",
  tooSmall: "dates before 0000 are not supported as unix timestamps",
  tooLarge: "dates after 9999 are not supported as unix timestamps",
  /**
   * Not the parser's but pydantic's: the parser reads year 0 (a date or a timestamp), which Python's
   * `datetime` refuses once the value is parsed, so its type is always `datetime_parsing`.
   */
  yearZero: "year 0 is out of range",
} as const;

/** Beyond this many seconds (either sign) a timestamp is read as milliseconds, as pydantic does. */
const MILLISECOND_THRESHOLD = 2e10;
/** The parser's timestamp range in seconds: 0000-01-01 to 9999-12-31T23:59:59; year 0 is then refused. */
const MIN_EPOCH_SECONDS = -62_167_219_200;
const MAX_EPOCH_SECONDS = 253_402_300_799;
/** 0001-01-01, Python's first day. */
const YEAR_ONE_EPOCH_SECONDS = -62_135_596_800;
/** The parser reads a number's integer part as a 64-bit integer; a longer one is not a number to it. */
const INT64_MAX_TEXT = "9223372036854775807";

const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?\d+(\.\d*)?$/;
const DATE_TIME_SEPARATORS = new Set(["T", "t", " ", "_"]);
const DAY_MS = 86_400_000;

type Step<Value> = { ok: true; value: Value; next: number } | { ok: false; error: string };
type DateParts = { year: number; month: number; day: number };
type TimeParts = { hour: number; minute: number; second: number; milliseconds: number; offsetMinutes: number };

const NO_TIME: TimeParts = { hour: 0, minute: 0, second: 0, milliseconds: 0, offsetMinutes: 0 };

/**
 * Reads a date-time the way pydantic 2.11 (lax mode) does: `YYYY-MM-DD[T HH:MM[:SS[.f…]][Z|±HH[:]MM]]`,
 * a date alone (midnight), or a Unix timestamp (number or numeric string; seconds, or milliseconds
 * when larger than 2e10). A value without offset is taken as UTC. The result is a UTC instant.
 * Fraction digits beyond milliseconds are dropped. Error texts are pydantic's (`dateTimeFaults`).
 */
export function parseDateTime(input: string | number): DateTimeParseResult {
  if (typeof input === "number") return fromTimestamp(input);
  const dateTime = readDateTime(input);
  // Year 0 is refused after the value parsed: no retry as a date.
  if (dateTime.ok || dateTime.error === dateTimeFaults.yearZero) return dateTime;
  if (isNumberText(input, DECIMAL_TEXT)) {
    const timestamp = fromTimestamp(Number(input));
    if (timestamp.ok || timestamp.error === dateTimeFaults.yearZero) return timestamp;
  }
  const date = readDate(input);
  if (date.ok && input.length === 10 && date.value.year > 0) return { ok: true, date: utcDate(date.value, NO_TIME) };
  return { ok: false, error: dateParsingReason(input) };
}

/**
 * Why pydantic's date parser refuses `text`. Lax pydantic retries a string it cannot read as a
 * date-time as a date, and the 422 names the date's reason (`datetime_from_date_parsing`): so
 * whatever is wrong after a valid date is "extra characters". An integer text is a timestamp, which
 * for a date must fall on a midnight. Returns "" when `text` is a date.
 */
export function dateParsingReason(text: string): string {
  const date = readDate(text);
  if (date.ok) {
    if (text.length > 10) return dateTimeFaults.extraCharacters;
    return date.value.year === 0 ? dateTimeFaults.yearZero : "";
  }
  if (!isNumberText(text, INTEGER_TEXT)) return date.error;
  const milliseconds = timestampMilliseconds(Number(text));
  const range = rangeFault(milliseconds);
  if (range) return range;
  return milliseconds % DAY_MS === 0 ? "" : dateTimeFaults.dateNotExact;
}

/**
 * The reason of the date-time parser alone, without the date retry: what a strict pydantic
 * `datetime` reports (`datetime_parsing`). Returns "" when `text` is a date-time.
 */
export function dateTimeParsingReason(text: string): string {
  const dateTime = readDateTime(text);
  if (dateTime.ok || !isNumberText(text, DECIMAL_TEXT)) return dateTime.ok ? "" : dateTime.error;
  const timestamp = fromTimestamp(Number(text));
  return timestamp.ok ? "" : timestamp.error;
}

function fromTimestamp(value: number): DateTimeParseResult {
  const milliseconds = timestampMilliseconds(value);
  const range = rangeFault(milliseconds);
  return range ? { ok: false, error: range } : { ok: true, date: new Date(Math.floor(milliseconds)) };
}

function timestampMilliseconds(value: number): number {
  return Math.abs(value) > MILLISECOND_THRESHOLD ? value : value * 1000;
}

/** The parser's range, then Python's: year 0 exists for the parser but not for Python's datetime. */
function rangeFault(milliseconds: number): string {
  if (!Number.isFinite(milliseconds)) return milliseconds > 0 ? dateTimeFaults.tooLarge : dateTimeFaults.tooSmall;
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < MIN_EPOCH_SECONDS) return dateTimeFaults.tooSmall;
  if (seconds > MAX_EPOCH_SECONDS) return dateTimeFaults.tooLarge;
  if (seconds < YEAR_ONE_EPOCH_SECONDS) return dateTimeFaults.yearZero;
  return "";
}

/** `pattern` matches and the integer part fits the parser's 64-bit integer (a sign aside). */
function isNumberText(text: string, pattern: RegExp): boolean {
  if (!pattern.test(text)) return false;
  const digits = (/\d+/.exec(text)?.[0] ?? "").replace(/^0+/, "");
  return digits.length < INT64_MAX_TEXT.length || (digits.length === INT64_MAX_TEXT.length && digits <= INT64_MAX_TEXT);
}

/**
 * The parser reads UTF-8 bytes: its length checks count them, not UTF-16 units ("2024-05-é" is ten
 * bytes, so its fault is the day's). Up to the first non-ASCII character, positions agree.
 */
function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

function isDigit(character: string | undefined): boolean {
  return character !== undefined && character >= "0" && character <= "9";
}

/** Two digits at `start`, or `fault` if either is missing or not a digit. */
function twoDigits(text: string, start: number, fault: string): Step<number> {
  if (!isDigit(text[start]) || !isDigit(text[start + 1])) return { ok: false, error: fault };
  return { ok: true, value: Number(text.slice(start, start + 2)), next: start + 2 };
}

/** The date in the first ten characters; the calendar is checked once all its digits are read. */
function readDate(text: string): Step<DateParts> {
  const fail = (error: string): Step<DateParts> => ({ ok: false, error });
  if (byteLength(text) < 10) return fail(dateTimeFaults.tooShort);
  for (let index = 0; index < 4; index += 1) if (!isDigit(text[index])) return fail(dateTimeFaults.year);
  if (text[4] !== "-") return fail(dateTimeFaults.dateSeparator);
  const month = twoDigits(text, 5, dateTimeFaults.month);
  if (!month.ok) return month;
  if (text[7] !== "-") return fail(dateTimeFaults.dateSeparator);
  const day = twoDigits(text, 8, dateTimeFaults.day);
  if (!day.ok) return day;
  const year = Number(text.slice(0, 4));
  if (month.value < 1 || month.value > 12) return fail(dateTimeFaults.monthRange);
  if (day.value < 1 || day.value > daysInMonth(year, month.value)) return fail(dateTimeFaults.dayRange);
  return { ok: true, value: { year, month: month.value, day: day.value }, next: 10 };
}

function readDateTime(text: string): DateTimeParseResult {
  const date = readDate(text);
  if (!date.ok) return date;
  if (!DATE_TIME_SEPARATORS.has(text[10] ?? "")) return { ok: false, error: dateTimeFaults.dateTimeSeparator };
  const time = readTime(text, 11);
  if (!time.ok) return time;
  if (time.next < text.length) return { ok: false, error: dateTimeFaults.extraCharacters };
  if (date.value.year === 0) return { ok: false, error: dateTimeFaults.yearZero };
  return { ok: true, date: utcDate(date.value, time.value) };
}

/** `HH:MM[:SS[.f…]]` then an optional offset; ranges are checked as soon as their digits are read. */
function readTime(text: string, start: number): Step<TimeParts> {
  const fail = (error: string): Step<TimeParts> => ({ ok: false, error });
  if (byteLength(text) - start < 5) return fail(dateTimeFaults.tooShort);
  const hour = twoDigits(text, start, dateTimeFaults.hour);
  if (!hour.ok) return hour;
  if (text[start + 2] !== ":") return fail(dateTimeFaults.timeSeparator);
  const minute = twoDigits(text, start + 3, dateTimeFaults.minute);
  if (!minute.ok) return minute;
  if (hour.value > 23) return fail(dateTimeFaults.hourRange);
  if (minute.value > 59) return fail(dateTimeFaults.minuteRange);

  let position = start + 5;
  let second = 0;
  let milliseconds = 0;
  if (text[position] === ":") {
    const parsedSecond = twoDigits(text, position + 1, dateTimeFaults.second);
    if (!parsedSecond.ok) return parsedSecond;
    if (parsedSecond.value > 59) return fail(dateTimeFaults.secondRange);
    second = parsedSecond.value;
    position += 3;
    if (text[position] === "." || text[position] === ",") {
      const fraction = /^\d*/.exec(text.slice(position + 1))?.[0] ?? "";
      if (fraction === "") return fail(dateTimeFaults.fractionMissing);
      milliseconds = Number(fraction.slice(0, 3).padEnd(3, "0"));
      position += 1 + fraction.length;
    }
  }

  const offset = readOffset(text, position);
  if (!offset.ok) return offset;
  return { ok: true, value: { hour: hour.value, minute: minute.value, second, milliseconds, offsetMinutes: offset.value }, next: offset.next };
}

/** `Z`, or a sign (`+`, `-` or U+2212) then `HH[:]MM`, minutes required as pydantic does; none is UTC. */
function readOffset(text: string, start: number): Step<number> {
  const fail = (error: string): Step<number> => ({ ok: false, error });
  const sign = text[start];
  if (sign === undefined) return { ok: true, value: 0, next: start };
  if (sign === "Z" || sign === "z") return { ok: true, value: 0, next: start + 1 };
  if (sign !== "+" && sign !== "-" && sign !== "\u2212") return fail(dateTimeFaults.zoneSign);
  const hour = twoDigits(text, start + 1, dateTimeFaults.zoneHour);
  if (!hour.ok) return hour;
  const minute = twoDigits(text, text[hour.next] === ":" ? hour.next + 1 : hour.next, dateTimeFaults.zoneMinute);
  if (!minute.ok) return minute;
  if (minute.value > 59) return fail(dateTimeFaults.zoneMinuteRange);
  if (hour.value > 23) return fail(dateTimeFaults.zoneRange);
  const magnitude = hour.value * 60 + minute.value;
  return { ok: true, value: sign === "+" ? magnitude : -magnitude, next: minute.next };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

function utcDate(date: DateParts, time: TimeParts): Date {
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  const result = new Date(0);
  result.setUTCFullYear(date.year, date.month - 1, date.day);
  result.setUTCHours(time.hour, time.minute - time.offsetMinutes, time.second, time.milliseconds);
  return result;
}
