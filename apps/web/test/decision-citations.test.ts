// Code comments, tests and docs cite docs/decisions.md by section (`decisions.md "Scoped keys"`) or by
// anchor (`decisions.md#search-and-who-sees-what`). This test keeps every citation pointing at a
// section the repository's decisions document has: a heading that starts with the cited name.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./import-graph";

const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", ".next", ".turbo", "generated", "test-artifacts"]);
const CITING_FILE = /\.(ts|tsx|mts|mjs|md)$/;

function listCitingFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(REPO_ROOT, directory), { withFileTypes: true })) {
    const relative = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) files.push(...listCitingFiles(relative));
    } else if (CITING_FILE.test(entry.name)) {
      files.push(relative);
    }
  }
  return files;
}

/** The text with comment line breaks joined, so a citation wrapped over two comment lines reads as one. */
function joinCommentLines(text: string): string {
  return text.replace(/\s*\n\s*(?:\/\/|\*(?!\/))?\s*/g, " ");
}

const headings = readFileSync(path.join(REPO_ROOT, "docs/decisions.md"), "utf8")
  .split("\n")
  .filter((line) => line.startsWith("#"))
  .map((line) => line.replace(/^#+\s*/, ""));
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchors = headings.map((heading) => heading.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, "").replace(/\s/g, "-"));

interface Citation {
  file: string;
  section: string;
}

function readCitations(): { named: Citation[]; anchored: Citation[] } {
  const named: Citation[] = [];
  const anchored: Citation[] = [];
  const files = [...["apps", "packages", "bench", "docs"].flatMap(listCitingFiles), "ARCHITECTURE.md", "README.md"];
  for (const file of files) {
    const text = joinCommentLines(readFileSync(path.join(REPO_ROOT, file), "utf8"));
    // `decisions.md "A"`, `decisions.md, "A"` and lists: `decisions.md "A", "B"`.
    for (const match of text.matchAll(/decisions\.md,? ("[^"\n]+"(?:, "[^"\n]+")*)/g)) {
      for (const quoted of match[1]!.matchAll(/"([^"]+)"/g)) named.push({ file, section: quoted[1]! });
    }
    for (const match of text.matchAll(/decisions\.md#([a-z0-9-]+)/g)) anchored.push({ file, section: match[1]! });
  }
  return { named, anchored };
}

describe("citations of docs/decisions.md", () => {
  const { named, anchored } = readCitations();

  it("name sections the document has", () => {
    expect(named.length).toBeGreaterThan(20);
    const dangling = named.filter(({ section }) => !headings.some((heading) => heading.toLowerCase().startsWith(section.toLowerCase())));
    expect(dangling).toEqual([]);
  });

  it("link anchors the document has", () => {
    expect(anchored.length).toBeGreaterThan(0);
    expect(anchored.filter(({ section }) => !anchors.includes(section))).toEqual([]);
  });
});
