/**
 * What the CLI prints of values it does not own (names, reasons, server messages) with every
 * character a terminal acts on rather than shows written as an escape: ESC as `\e`, CR, LF and TAB as
 * `\r`, `\n`, `\t`, any other C0 or C1 control, DEL, the bidirectional overrides and isolates and the
 * line/paragraph separators as `\u00XX`. So a pair named `\u001b]0;…` cannot retitle the terminal,
 * recolour it or, with `\r\n`, forge a row of a table: a value always prints on one line, as it is.
 * A backslash itself is left alone (file paths read as written).
 */
export function escapeTerminalText(text: string): string {
  let escaped = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    escaped += isActedOn(code) ? (NAMED_ESCAPES[char] ?? `\\u${code.toString(16).padStart(4, "0")}`) : char;
  }
  return escaped;
}

/**
 * A message of the program's own words with values in it: the values are escaped (escapeTerminalText),
 * the literal text is kept, so a message may still end a line on purpose.
 */
export function terminalText(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((message, literal, index) => message + escapeTerminalText(String(values[index - 1])) + literal);
}

/**
 * JSON as `--json` prints it: JSON.stringify already escapes C0 controls; the C1 controls, bidi
 * controls and separators it leaves raw are written as `\uXXXX` too (the same JSON value).
 */
export function escapeJsonForTerminal(json: string): string {
  let escaped = "";
  for (const char of json) {
    const code = char.codePointAt(0) ?? 0;
    escaped += isActedOn(code) && code >= 0x7f ? `\\u${code.toString(16).padStart(4, "0")}` : char;
  }
  return escaped;
}

const NAMED_ESCAPES: Record<string, string> = { "\u001b": "\\e", "\r": "\\r", "\n": "\\n", "\t": "\\t" };

/** Bidi marks, embeddings, overrides and isolates, and the Unicode line and paragraph separators. */
const FORMATTING_CONTROLS = new Set([0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);

function isActedOn(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || FORMATTING_CONTROLS.has(code);
}
