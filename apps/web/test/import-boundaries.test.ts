// The dependency rules of ARCHITECTURE.md, checked on every run so that they stay true: the folders
// of core and of the web app depend one way, down the ladder ARCHITECTURE.md draws (so no two import
// each other, nor any loop of them), no
// infrastructure imports a route module or page, packages import only the packages below them, apps reach @svc/core only through its declared
// exports, and no package imports from an app. Production files only; tests may reach anywhere.
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  findFolderCycles,
  listProductionFiles,
  listWorkspaceDirectories,
  listSourceFiles,
  readExportedNames,
  readFolderEdges,
  readIdentifiers,
  readImports,
  readPackageJson,
} from "./import-graph";

const APP_DIRECTORIES = listWorkspaceDirectories("apps");
const PACKAGE_DIRECTORIES = listWorkspaceDirectories("packages");
const APP_NAMES = APP_DIRECTORIES.map((directory) => readPackageJson(directory).name);

/**
 * The imports between folders under `root` that do not go down the declared ladder: `levels` gives
 * each folder its level, and a folder may import only folders of a lower level. A folder missing from
 * `levels` is reported too, so a new folder gets its place on purpose.
 */
function ladderViolations(files: string[], root: string, levels: Record<string, number>, exempt: string[] = []): string[] {
  const violations: string[] = [];
  for (const [from, targets] of readFolderEdges(files, root)) {
    if (exempt.includes(from)) continue;
    for (const [to, edge] of targets) {
      const fromLevel = levels[from];
      const toLevel = levels[to];
      if (fromLevel === undefined || toLevel === undefined) violations.push(`${from} or ${to} has no level (${edge.from} imports ${edge.specifier})`);
      else if (toLevel >= fromLevel) violations.push(`${from} (level ${fromLevel}) imports ${to} (level ${toLevel}): ${edge.from} imports ${edge.specifier}`);
    }
  }
  return violations;
}

describe("import boundaries", () => {
  it("core's folders depend one way", () => {
    const root = "packages/core/src";
    expect(findFolderCycles(listProductionFiles(root), root)).toEqual([]);
  });

  it("core's folders follow the ladder ARCHITECTURE.md draws", () => {
    const root = "packages/core/src";
    const levels = {
      errors: 0,
      model: 0,
      observability: 0,
      "same-values (file)": 0,
      jobs: 1,
      setup: 2,
      auth: 2,
      // Uploads belong to their uploader's scope (auth); documents check image sections against them.
      files: 3,
      "search-index": 3,
      // The outbox: every state change below connectors writes its event in its own transaction.
      events: 3,
      // Webhook signing, address checks and delivery read events.
      webhooks: 4,
      indexing: 4,
      connectors: 5,
      documents: 6,
      search: 7,
      health: 8,
    };
    expect(ladderViolations(listProductionFiles(root), root, levels, ["index (file)"])).toEqual([]);
  });

  it("the web app's folders follow app → components → lib → server", () => {
    const files = ["app", "components", "lib", "server"].flatMap((folder) => listProductionFiles(path.join("apps/web", folder)));
    const levels = { "server (file)": 4, app: 3, components: 2, lib: 1, server: 0 };
    expect(ladderViolations([...files, "apps/web/server.ts"], "apps/web", levels)).toEqual([]);
  });

  it("the web app's folders depend one way", () => {
    const files = ["app", "components", "lib", "server"].flatMap((folder) =>
      listProductionFiles(path.join("apps/web", folder)),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(findFolderCycles([...files, "apps/web/server.ts"], "apps/web")).toEqual([]);
  });

  it("no web infrastructure imports a route module or a page", () => {
    const offenders = [...["components", "lib", "server"].flatMap((folder) => listProductionFiles(path.join("apps/web", folder))), "apps/web/server.ts"]
      .flatMap(readImports)
      .filter(({ resolved }) => resolved !== null && resolved.startsWith(`apps${path.sep}web${path.sep}app${path.sep}`))
      .map(({ from, specifier }) => `${from} imports ${specifier}`);
    expect(offenders).toEqual([]);
  });

  it("@svc/core is imported only through its declared exports", () => {
    const declared = Object.keys(readPackageJson("packages/core").exports ?? {}).map((key) =>
      path.posix.join("@svc/core", key),
    );
    expect(declared).toContain("@svc/core");
    const offenders = [...APP_DIRECTORIES, ...PACKAGE_DIRECTORIES, "bench"]
      .flatMap((directory) => listProductionFiles(directory))
      .flatMap(readImports)
      .filter(({ specifier }) => specifier === "@svc/core" || specifier.startsWith("@svc/core/"))
      // Test support is for tests: production code gets no factories.
      .filter(({ specifier }) => !declared.includes(specifier) || specifier === "@svc/core/testing")
      .map(({ from, specifier }) => `${from} imports ${specifier}`);
    expect(offenders).toEqual([]);
  });

  it("@svc/core's index exports only what the apps (or their test support) use", () => {
    const exported = readExportedNames("packages/core/src/index.ts");
    expect(exported.length).toBeGreaterThan(50);
    // Files that import @svc/core (statically or not), and core's test support, which builds on the
    // same surface (@svc/core/testing imports "../index"): a name is used when their code names it.
    const importers = [
      ...[...APP_DIRECTORIES, "bench"].flatMap(listSourceFiles).filter((file) => readImports(file).some(({ specifier }) => specifier === "@svc/core")),
      ...listSourceFiles("packages/core/src/testing").filter((file) => readImports(file).some(({ specifier }) => specifier === "../index")),
    ];
    const used = new Set(importers.flatMap((file) => [...readIdentifiers(file)]));
    expect(exported.filter((name) => !used.has(name))).toEqual([]);
  });

  it("packages import only the packages below them (schema → db, search-index → core)", () => {
    const below: Record<string, string[]> = {
      "@svc/schema": [],
      "@svc/db": ["@svc/schema"],
      "@svc/search-index": ["@svc/schema"],
      "@svc/core": ["@svc/schema", "@svc/db", "@svc/search-index"],
      // Installed outside the workspace from its tarball, with @svc/schema's (the event stream's zod models).
      "@svc/client": ["@svc/schema"],
    };
    const offenders = PACKAGE_DIRECTORIES.flatMap((directory) => {
      const name = readPackageJson(directory).name;
      const allowed = below[name];
      if (allowed === undefined) return [`${directory}: ${name} has no place in the package order yet`];
      return listProductionFiles(path.join(directory, "src"))
        .flatMap(readImports)
        .filter(({ specifier }) => specifier.startsWith("@svc/"))
        .filter(({ specifier }) => !allowed.some((target) => specifier === target || specifier.startsWith(`${target}/`)))
        .map(({ from, specifier }) => `${from} imports ${specifier}`);
    });
    expect(offenders).toEqual([]);
  });

  it("no package imports from an app", () => {
    expect(APP_NAMES).toContain("@svc/web");
    const offenders = PACKAGE_DIRECTORIES.flatMap((directory) => listProductionFiles(directory))
      .flatMap(readImports)
      .filter(
        ({ specifier, resolved }) =>
          APP_NAMES.some((name) => specifier === name || specifier.startsWith(`${name}/`)) ||
          (resolved !== null && resolved.startsWith(`apps${path.sep}`)),
      )
      .map(({ from, specifier }) => `${from} imports ${specifier}`);
    expect(offenders).toEqual([]);
  });
});
