/** Where and why a text is not JSON, in the terms of Python's `json` module. */
export interface JsonSyntaxError {
  /** Offset in code points, as Python counts characters. */
  position: number;
  /** Python's message, e.g. "Expecting value", "Expecting ',' delimiter". */
  message: string;
}

type Container = "object" | "array";

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/**
 * Finds the first syntax error of a JSON text exactly where CPython's `json.loads` (3.11, the
 * original service's parser) reports it, so `["body", <offset>]` of a `json_invalid` 422 matches.
 * Returns null when the text is valid JSON. Runs only after `JSON.parse` has failed; iterative, so
 * deep nesting cannot overflow the stack. NaN/Infinity (Python extensions) are not accepted.
 */
export function locateJsonSyntaxError(text: string): JsonSyntaxError | null {
  let index = 0;
  const stack: Container[] = [];
  const fail = (message: string, at: number): JsonSyntaxError => ({
    position: codePointOffset(text, at),
    message,
  });
  const skipWhitespace = () => {
    while (index < text.length && WHITESPACE.has(text[index] ?? "")) index += 1;
  };

  /** Scans the string starting at `index` (a quote); returns an error or null. */
  const scanString = (): JsonSyntaxError | null => {
    const begin = index;
    index += 1;
    for (;;) {
      if (index >= text.length) return fail("Unterminated string starting at", begin);
      const char = text[index] ?? "";
      if (char === '"') {
        index += 1;
        return null;
      }
      if (char === "\\") {
        const escape = text[index + 1];
        if (escape === undefined) return fail("Unterminated string starting at", begin);
        if (escape === "u") {
          if (!HEX4.test(text.slice(index + 2, index + 6))) return fail("Invalid \\uXXXX escape", index + 1);
          index += 6;
        } else if (SIMPLE_ESCAPES.has(escape)) {
          index += 2;
        } else {
          return fail("Invalid \\escape", index);
        }
        continue;
      }
      if (char.charCodeAt(0) < 0x20) return fail("Invalid control character at", index);
      index += 1;
    }
  };

  /** Scans one value at `index` (whitespace already skipped); containers are opened, not closed. */
  const scanValue = (): JsonSyntaxError | "opened" | null => {
    const char = text[index];
    if (char === "{" || char === "[") {
      stack.push(char === "{" ? "object" : "array");
      index += 1;
      return "opened";
    }
    if (char === '"') return scanString();
    for (const literal of ["null", "true", "false"]) {
      if (text.startsWith(literal, index)) {
        index += literal.length;
        return null;
      }
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(text);
    if (number) {
      index += number[0].length;
      return null;
    }
    return fail("Expecting value", index);
  };

  /** After `{` or `,` in an object: a key, a colon, then the value. */
  const scanMember = (): JsonSyntaxError | "opened" | null => {
    if (text[index] !== '"') return fail("Expecting property name enclosed in double quotes", index);
    const keyError = scanString();
    if (keyError) return keyError;
    skipWhitespace();
    if (text[index] !== ":") return fail("Expecting ':' delimiter", index);
    index += 1;
    skipWhitespace();
    return scanValue();
  };

  skipWhitespace();
  let step = scanValue();
  for (;;) {
    if (step !== null && step !== "opened") return step;
    if (step === "opened") {
      // Just inside a new container: it may close at once.
      skipWhitespace();
      const container = stack[stack.length - 1];
      if (container === "object") {
        if (text[index] === "}") {
          index += 1;
          stack.pop();
          step = null;
          continue;
        }
        step = scanMember();
      } else {
        if (text[index] === "]") {
          index += 1;
          stack.pop();
          step = null;
          continue;
        }
        step = scanValue();
      }
      continue;
    }
    // A value has just ended.
    skipWhitespace();
    const container = stack[stack.length - 1];
    if (container === undefined) break;
    const closer = container === "object" ? "}" : "]";
    if (text[index] === closer) {
      index += 1;
      stack.pop();
      continue;
    }
    if (text[index] !== ",") return fail("Expecting ',' delimiter", index);
    index += 1;
    skipWhitespace();
    step = container === "object" ? scanMember() : scanValue();
  }
  if (index !== text.length) return fail("Extra data", index);
  return null;
}

/** Converts a UTF-16 offset into a code-point offset. */
function codePointOffset(text: string, offset: number): number {
  let surrogatePairs = 0;
  for (let i = 0; i < offset - 1; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs += 1;
        i += 1;
      }
    }
  }
  return offset - surrogatePairs;
}
