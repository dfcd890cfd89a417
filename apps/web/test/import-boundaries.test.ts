// The dependency rules of ARCHITECTURE.md, checked on every run so that they stay true: no two
// folders of core or of the web app import each other, apps reach @svc/core only through its declared
// exports, and no package imports from an app. Production files only; tests may reach anywhere.
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  findMutualFolderImports,
  listProductionFiles,
  listWorkspaceDirectories,
  readImports,
  readPackageJson,
} from "./import-graph";

const APP_DIRECTORIES = listWorkspaceDirectories("apps");
const PACKAGE_DIRECTORIES = listWorkspaceDirectories("packages");
const APP_NAMES = APP_DIRECTORIES.map((directory) => readPackageJson(directory).name);

describe("import boundaries", () => {
  it("core's folders depend one way", () => {
    const root = "packages/core/src";
    expect(findMutualFolderImports(listProductionFiles(root), root)).toEqual([]);
  });

  it("the web app's folders depend one way", () => {
    const files = ["app", "components", "lib", "server"].flatMap((folder) =>
      listProductionFiles(path.join("apps/web", folder)),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(findMutualFolderImports([...files, "apps/web/server.ts"], "apps/web")).toEqual([]);
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
