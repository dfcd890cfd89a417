import { escapeJsonForTerminal, escapeTerminalText } from "./terminal-text";

/**
 * Prints rows as aligned columns under an upper-case header line (the kubectl/docker look): easy to
 * read, and still one record per line for grep and awk, whatever a cell holds (its controls are
 * escaped). `--json` is the form for programs.
 */
export function printTable(headers: readonly string[], rows: readonly (readonly (string | number | null)[])[]): void {
  const cells = [headers, ...rows].map((row, index) =>
    row.map((cell) => escapeTerminalText(cell === null ? "-" : index === 0 ? String(cell).toUpperCase() : String(cell))),
  );
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  for (const row of cells) {
    const padded = row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)));
    console.log(padded.join("  "));
  }
}

/** `--json` output: pretty-printed, one document on stdout. */
export function printJson(value: unknown): void {
  console.log(escapeJsonForTerminal(JSON.stringify(value, null, 2)));
}
