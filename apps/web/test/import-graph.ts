// Reads the import graph of the repository's production sources, for the boundary test. The
// specifiers come from TypeScript's own pre-processor (`ts.preProcessFile`), which knows static,
// type-only, re-export and dynamic imports and skips comments and strings, so no regex guesses.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface ImportEdge {
  /** The importing file, relative to the repository root. */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** For a relative specifier, the path it names, relative to the repository root. */
  resolved: string | null;
}

const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|mjs)$/;
const TEST_FILE = /\.(test|spec)\.(ts|tsx|mts|cts)$/;
const DECLARATION_FILE = /\.d\.ts$/;
const BUILD_DIRECTORIES = ["node_modules", "dist", ".next", ".turbo"];
const TEST_DIRECTORIES = ["test", "testing", "e2e"];

/** The source files under a directory, relative to the root; `withTests` keeps tests and test support. */
function listFiles(directory: string, withTests: boolean): string[] {
  const skipped = new Set(withTests ? BUILD_DIRECTORIES : [...BUILD_DIRECTORIES, ...TEST_DIRECTORIES]);
  const files: string[] = [];
  const pending = [path.join(REPO_ROOT, directory)];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) pending.push(full);
      } else if (SOURCE_FILE.test(entry.name) && !DECLARATION_FILE.test(entry.name) && (withTests || !TEST_FILE.test(entry.name))) {
        files.push(path.relative(REPO_ROOT, full));
      }
    }
  }
  return files.sort();
}

/** The production source files under a directory (tests and test support left out), relative to the root. */
export function listProductionFiles(directory: string): string[] {
  return listFiles(directory, false);
}

/** Every source file under a directory, tests included (dependencies and build output left out). */
export function listSourceFiles(directory: string): string[] {
  return listFiles(directory, true);
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(path.join(REPO_ROOT, file), "utf8"), ts.ScriptTarget.Latest, false);
}

/** The names a module re-exports by name (`export { a, type B } from "…"`). */
export function readExportedNames(file: string): string[] {
  return parse(file).statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.map((element) => element.name.text)
      : [],
  );
}

/** The identifiers a file's code names (comments and strings left out). */
export function readIdentifiers(file: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return names;
}

export function readImports(file: string): ImportEdge[] {
  const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName }) => ({
    from: file,
    specifier: fileName,
    resolved: fileName.startsWith(".") ? path.join(path.dirname(file), fileName) : null,
  }));
}

/**
 * The folder a file belongs to: the first directory level under `root`, or the file itself when it
 * sits directly in `root` (so a top-level module is its own node, never merged with a folder).
 */
export function folderOf(file: string, root: string): string | null {
  const relative = path.relative(root, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return null;
  const [first, ...rest] = relative.split(path.sep);
  // A file node is named without its extension, as an import names it.
  return rest.length === 0 ? `${first!.replace(SOURCE_FILE, "")} (file)` : first!;
}

/** The imports between different folders under `root`: one edge per ordered pair, the first seen as evidence. */
export function readFolderEdges(files: string[], root: string): Map<string, Map<string, ImportEdge>> {
  const edges = new Map<string, Map<string, ImportEdge>>();
  for (const file of files) {
    const from = folderOf(file, root);
    if (from === null) continue;
    for (const edge of readImports(file)) {
      if (edge.resolved === null) continue;
      const to = folderOf(edge.resolved, root);
      if (to === null || to === from) continue;
      const targets = edges.get(from) ?? new Map<string, ImportEdge>();
      if (!targets.has(to)) targets.set(to, edge);
      edges.set(from, targets);
    }
  }
  return edges;
}

/**
 * The folders under `root` that depend on each other, directly (`a` imports `b` and `b` imports `a`)
 * or around a longer loop: one line per loop, each step with the import that makes it.
 */
export function findFolderCycles(files: string[], root: string): string[] {
  const edges = readFolderEdges(files, root);
  const cycles: string[] = [];
  const done = new Set<string>();
  // Depth-first from every folder in name order; a folder on the current path seen again closes a loop.
  const visit = (folder: string, trail: string[]) => {
    if (done.has(folder)) return;
    const at = trail.indexOf(folder);
    if (at >= 0) {
      const loop = [...trail.slice(at), folder];
      const steps = loop.slice(1).map((to, index) => {
        const edge = edges.get(loop[index]!)!.get(to)!;
        return `${edge.from} imports ${edge.specifier}`;
      });
      cycles.push(`${loop.join(" -> ")}: ${steps.join("; ")}`);
      return;
    }
    for (const next of [...(edges.get(folder)?.keys() ?? [])].sort()) visit(next, [...trail, folder]);
    done.add(folder);
  };
  for (const folder of [...edges.keys()].sort()) visit(folder, []);
  return cycles;
}

interface PackageJson {
  name: string;
  exports?: Record<string, string>;
}

export function readPackageJson(directory: string): PackageJson {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, directory, "package.json"), "utf8")) as PackageJson;
}

export function listWorkspaceDirectories(parent: string): string[] {
  return readdirSync(path.join(REPO_ROOT, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(parent, entry.name))
    .sort();
}
