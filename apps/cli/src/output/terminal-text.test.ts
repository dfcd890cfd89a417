import { describe, expect, it } from "vitest";
import { escapeJsonForTerminal, escapeTerminalText, terminalText } from "./terminal-text";

describe("escapeTerminalText", () => {
  it("writes every character a terminal acts on as an escape, and leaves the rest as it is", () => {
    expect(escapeTerminalText("a\u001b]0;title\u0007b\r\n\tc\u007f\u0085\u009b\u202e\u2066\u2028")).toBe(
      "a\\e]0;title\\u0007b\\r\\n\\tc\\u007f\\u0085\\u009b\\u202e\\u2066\\u2028",
    );
    expect(escapeTerminalText("Ünïcødé 😀 C:\\path\\e")).toBe("Ünïcødé 😀 C:\\path\\e");
  });

  it("escapes a message's values, not its own text", () => {
    expect(terminalText`Pair ${7} "${"x\ny"}".\n`).toBe('Pair 7 "x\\ny".\n');
  });

  it("keeps JSON the same value while escaping the C1 and bidi controls JSON.stringify leaves raw", () => {
    const json = JSON.stringify({ name: "a\u009b\u202eb\u001b" });
    const escaped = escapeJsonForTerminal(json);
    expect(escaped).toBe('{"name":"a\\u009b\\u202eb\\u001b"}');
    expect(JSON.parse(escaped)).toEqual({ name: "a\u009b\u202eb\u001b" });
  });
});
