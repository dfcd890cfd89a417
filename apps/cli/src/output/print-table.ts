/**
 * Prints rows as aligned columns under an upper-case header line (the kubectl/docker look): easy to
 * read, and still one record per line for grep and awk. `--json` is the form for programs.
 */
export function printTable(headers: readonly string[], rows: readonly (readonly (string | number | null)[])[]): void {
  const cells = [headers.map((header) => header.toUpperCase()), ...rows.map((row) => row.map((cell) => (cell === null ? "-" : String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  for (const row of cells) {
    const padded = row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)));
    console.log(padded.join("  "));
  }
}

/** `--json` output: pretty-printed, one document on stdout. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
