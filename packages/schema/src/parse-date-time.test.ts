import { describe, expect, it } from "vitest";
import { dateParsingReason, dateTimeFaults, dateTimeParsingReason, parseDateTime } from "./parse-date-time";

// Each row names speedate's fault kind; the text is pydantic 2.11's reason for it.
describe("parseDateTime refuses a string with the date parser's reason (datetime_from_date_parsing)", () => {
  it.each([
    ["TooShort: shorter than a date", "nope", dateTimeFaults.tooShort],
    ["TooShort: a date cut short", "2024-05-0", dateTimeFaults.tooShort],
    ["InvalidCharYear: letters where the year goes", "not a date", dateTimeFaults.year],
    ["InvalidCharYear: a year of three digits", "202-05-01T00:00", dateTimeFaults.year],
    ["InvalidCharDateSep: a slash after the year", "2024/05/01", dateTimeFaults.dateSeparator],
    ["InvalidCharDateSep: a slash after the month", "2024-05/01", dateTimeFaults.dateSeparator],
    ["InvalidCharMonth", "2024-5-01xx", dateTimeFaults.month],
    ["InvalidCharDay", "2024-05-1x", dateTimeFaults.day],
    ["OutOfRangeMonth: month 13", "2024-13-01", dateTimeFaults.monthRange],
    ["OutOfRangeMonth: month 00", "2024-00-01T00:00:00Z", dateTimeFaults.monthRange],
    ["OutOfRangeDay: day 32", "2024-01-32", dateTimeFaults.dayRange],
    ["OutOfRangeDay: day 00", "2024-01-00", dateTimeFaults.dayRange],
    ["OutOfRangeDay: 29 February of a common year", "2023-02-29T00:00:00Z", dateTimeFaults.dayRange],
    ["OutOfRangeDay: 29 February 1900", "1900-02-29", dateTimeFaults.dayRange],
    // After a valid date the date parser stops: every later fault is extra characters.
    ["ExtraCharacters: a bad date-time separator", "2024-05-01X00:00:00", dateTimeFaults.extraCharacters],
    ["ExtraCharacters: OutOfRangeHour", "2024-01-01T25:00:00Z", dateTimeFaults.extraCharacters],
    ["ExtraCharacters: a bad offset", "2024-01-01T00:00:00+2500", dateTimeFaults.extraCharacters],
    ["ExtraCharacters: junk after a full date-time", "2024-01-01T00:00:00Zjunk", dateTimeFaults.extraCharacters],
    ["DateTooLarge: a numeric string after 9999", "300000000000000000", dateTimeFaults.tooLarge],
    ["DateTooSmall: a numeric string before 0000", "-300000000000000000", dateTimeFaults.tooSmall],
    ["Python's own: year 0", "0000-01-01", dateTimeFaults.yearZero],
    ["Python's own: a milliseconds timestamp in year 0", "-62167219200000", dateTimeFaults.yearZero],
    ["DateTooSmall: a milliseconds timestamp before 0000-01-01", "-62167219200001", dateTimeFaults.tooSmall],
    // The parser counts UTF-8 bytes: ten of them are long enough for a date.
    ["InvalidCharDay: ten bytes in nine characters", "2024-05-\u00e9", dateTimeFaults.day],
    ["InvalidCharMonth: ten bytes in eight characters", "2024-5\u00e901", dateTimeFaults.month],
    ["TooShort: nine bytes", "2024-05-0", dateTimeFaults.tooShort],
    // An integer part beyond 64 bits is no number to the parser: the text's own fault is named.
    ["InvalidCharDateSep: twenty digits", "99999999999999999999", dateTimeFaults.dateSeparator],
    ["InvalidCharYear: a 64-bit minimum", "-9223372036854775808", dateTimeFaults.year],
    ["ExtraCharacters: an offset of hours alone", "2024-05-01T10:00:00+05", dateTimeFaults.extraCharacters],
  ])("%s: %j", (_kind, input, reason) => {
    expect(parseDateTime(input)).toEqual({ ok: false, error: reason });
    expect(dateParsingReason(input)).toBe(reason);
  });

  it("refuses year 0 in a date-time as soon as it is read, without the date retry (whose reason is the extra characters)", () => {
    expect(parseDateTime("0000-01-01T00:00:00")).toEqual({ ok: false, error: dateTimeFaults.yearZero });
    expect(dateParsingReason("0000-01-01T00:00:00")).toBe(dateTimeFaults.extraCharacters);
  });

  it.each([
    ["a leap day", "2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["29 February 2000", "2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"],
    ["a lower-case t and z", "2024-05-01t10:20:30z", "2024-05-01T10:20:30.000Z"],
    ["an underscore and an offset without colon", "2024-05-01_10:20+0130", "2024-05-01T08:50:00.000Z"],
    ["a U+2212 minus offset", "2024-05-01 10:20:00\u221202:00", "2024-05-01T12:20:00.000Z"],
    ["a comma fraction truncated to milliseconds", "2024-05-01T10:20:30,1239876Z", "2024-05-01T10:20:30.123Z"],
    ["a seconds timestamp", "1700000000", "2023-11-14T22:13:20.000Z"],
    ["a fractional timestamp", "1700000000.5", "2023-11-14T22:13:20.500Z"],
    ["a milliseconds timestamp", "1700000000123", "2023-11-14T22:13:20.123Z"],
  ])("accepts %s: %j", (_what, input, instant) => {
    const parsed = parseDateTime(input);
    expect(parsed.ok && parsed.date.toISOString()).toBe(instant);
  });
});

describe("dateTimeParsingReason: the date-time parser alone (a strict datetime's datetime_parsing)", () => {
  it.each([
    ["TooShort", "2024-05", dateTimeFaults.tooShort],
    ["InvalidCharYear", "yyyy-05-01T00:00", dateTimeFaults.year],
    ["InvalidCharDateTimeSep: a date alone", "2024-05-01", dateTimeFaults.dateTimeSeparator],
    ["InvalidCharDateTimeSep", "2024-05-01X10:00", dateTimeFaults.dateTimeSeparator],
    ["TooShort: a time cut short", "2024-05-01T10:0", dateTimeFaults.tooShort],
    ["InvalidCharHour", "2024-05-01T1a:00", dateTimeFaults.hour],
    ["InvalidCharTimeSep", "2024-05-01T10-00", dateTimeFaults.timeSeparator],
    ["InvalidCharMinute", "2024-05-01T10:0a", dateTimeFaults.minute],
    ["OutOfRangeHour: checked before the seconds are read", "2024-05-01T25:00:xx", dateTimeFaults.hourRange],
    ["OutOfRangeMinute", "2024-05-01T10:60", dateTimeFaults.minuteRange],
    ["InvalidCharSecond", "2024-05-01T10:00:5", dateTimeFaults.second],
    ["OutOfRangeSecond", "2024-05-01T10:00:60", dateTimeFaults.secondRange],
    ["SecondFractionMissing", "2024-05-01T10:00:00.Z", dateTimeFaults.fractionMissing],
    ["InvalidCharTzSign", "2024-05-01T10:00:00#01:00", dateTimeFaults.zoneSign],
    ["InvalidCharTzHour", "2024-05-01T10:00:00+1", dateTimeFaults.zoneHour],
    ["InvalidCharTzMinute", "2024-05-01T10:00:00+01:3", dateTimeFaults.zoneMinute],
    ["InvalidCharTzMinute: a letter after the hours", "2024-05-01T10:00:00+01h", dateTimeFaults.zoneMinute],
    ["InvalidCharTzMinute: hours alone", "2024-05-01T10:00:00+01", dateTimeFaults.zoneMinute],
    ["InvalidCharMinute: a time of five bytes in four characters", "2024-05-01T10:\u00e9", dateTimeFaults.minute],
    ["OutOfRangeTzMinute", "2024-05-01T10:00:00+01:60", dateTimeFaults.zoneMinuteRange],
    ["OutOfRangeTz", "2024-05-01T10:00:00+24:00", dateTimeFaults.zoneRange],
    ["ExtraCharacters", "2024-05-01T10:00:00Z!", dateTimeFaults.extraCharacters],
    ["DateTooLarge: a timestamp past 9999", "253402300800000", dateTimeFaults.tooLarge],
  ])("%s: %j", (_kind, input, reason) => {
    expect(dateTimeParsingReason(input)).toBe(reason);
  });
});

describe("parseDateTime of a number (datetime_parsing)", () => {
  it.each([
    // Above 2e10 a timestamp is milliseconds, so only milliseconds can leave the range.
    ["DateTooLarge: milliseconds past 9999", 253402300800000, dateTimeFaults.tooLarge],
    ["DateTooSmall: milliseconds before 0000", -62167219201000, dateTimeFaults.tooSmall],
  ])("%s: %j", (_kind, input, reason) => {
    expect(parseDateTime(input)).toEqual({ ok: false, error: reason });
  });
});

describe("dateParsingReason of an integer text (a date from a timestamp)", () => {
  it("wants a midnight: DateNotExact", () => {
    expect(dateParsingReason("86401")).toBe(dateTimeFaults.dateNotExact);
    expect(dateParsingReason("86400")).toBe("");
  });
});
