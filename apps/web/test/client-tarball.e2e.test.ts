// @svc/client and @svc/schema as their users get them: packed tarballs installed into a project
// outside the workspace, imported by a plain Node script (no TypeScript loader) that calls a live
// production server, and type-checked by tsc (a misspelt field must not compile).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createApiKey } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "./production-server";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");

let project = "";
let database: TestDatabase;
let server: ProductionServer;
let adminKey = "";

/**
 * The installed copies of a package's dependencies, transitively, by name: in pnpm's layout a package
 * at `…/node_modules/NAME` finds its dependencies beside it, a workspace package in its own node_modules.
 */
async function dependencyDirs(packageDir: string, found = new Map<string, string>()): Promise<Map<string, string>> {
  const manifest = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { name: string; dependencies?: Record<string, string> };
  const suffix = `${path.sep}node_modules${path.sep}${manifest.name}`;
  const container = packageDir.endsWith(suffix) ? packageDir.slice(0, -manifest.name.length - 1) : path.join(packageDir, "node_modules");
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (found.has(name)) continue;
    const dir = await realpath(path.join(container, name));
    found.set(name, dir);
    await dependencyDirs(dir, found);
  }
  return found;
}

beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), "svc-client-"));
  const tarballs = path.join(project, "tarballs");
  const packages = ["schema", "client"].map((name) => path.join(repoRoot, "packages", name));
  for (const dir of packages) await run("pnpm", ["pack", "--pack-destination", tarballs], { cwd: dir });
  // Their dependencies (zod, openapi-fetch, …) packed from the workspace's installed copies, so the
  // install below needs no registry: a stalled registry once took this hook past its deadline.
  const dependencies = new Map<string, string>();
  for (const dir of packages) await dependencyDirs(dir, dependencies);
  for (const [name, dir] of dependencies) {
    // An installed package already holds its published files; npm's tarballs keep them under package/.
    // pnpm links identical files to one store file: tar must write each as itself, not as a hard link.
    const tarball = path.join(tarballs, `${name.replace("/", "-")}.tgz`);
    await run("tar", ["-czf", tarball, "--hard-dereference", "--transform", "s,^\\.,package,", "-C", dir, "."]);
  }
  const packed = (await readdir(tarballs)).map((file) => path.join(tarballs, file));
  expect(packed).toHaveLength(2 + dependencies.size);
  await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "svc-client-user", private: true, type: "module" }));
  // Outside the workspace, with npm, as a user installs them.
  await run("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...packed], { cwd: project, timeout: 120_000 });

  database = await createTestDatabase();
  adminKey = (await createApiKey({ db: database.db, name: "client admin", role: "admin" })).key;
  server = await startProductionServer({ databaseUrl: database.databaseUrl });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  if (project) await rm(project, { recursive: true, force: true });
});

const SCRIPT = `
import { createSvcClient, SvcApiError } from "@svc/client";
import { IngestionDocumentSchema } from "@svc/schema";

const client = createSvcClient({ baseUrl: process.env.SVC_URL, apiKey: process.env.SVC_API_KEY });
const out = {};
const doc = (id, extra = {}) => ({
  document: { id, semantic_identifier: "Doc " + id, sections: [{ text: "Hello " + id }], metadata: {}, ...extra },
});
out.schemaParses = IngestionDocumentSchema.safeParse(doc("x")).success;
out.ingest = await client.ingest(doc("reports/q3 plan"));
out.batch = await client.ingestBatch([doc("b-1"), doc("b-2"), { document: { id: "b-3" } }, doc("b-1")]);
out.document = await client.getDocument("reports/q3 plan");
out.listed = [];
for await (const item of client.listDocuments({ limit: 2 })) out.listed.push(item.document_id);
const pair = await client.createCcPair({ name: "Client pair", source: "web", access_type: "public" });
await client.ingestBatch([{ ...doc("pair-1"), cc_pair_id: pair.cc_pair_id }, { ...doc("pair-2"), cc_pair_id: pair.cc_pair_id }]);
out.pairListed = [];
for await (const item of client.listDocuments({ ccPairId: pair.cc_pair_id, limit: 1 })) out.pairListed.push(item.document_id);
out.pairPaused = (await client.setCcPairStatus(pair.cc_pair_id, "PAUSED")).status;
out.pairRenamed = (await client.updateCcPair(pair.cc_pair_id, { name: "Renamed", status: "ACTIVE" })).name;
out.pair = (await client.getCcPair(pair.cc_pair_id)).name;
out.status = (await client.indexingStatus({ get_all_connectors: true })).map((group) => group.source);
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const uploaded = await client.uploadFiles([new File([png], "pixel.png"), { name: "notes.txt", data: new Blob(["text"]) }]);
out.uploaded = { accepted: uploaded.user_files.map((file) => file.name), rejected: uploaded.rejected_files.map((file) => file.file_name) };
out.metrics = (await client.metrics()).includes("# TYPE");
out.search = Array.isArray((await client.search({ query: "hello" })).results);
await client.deleteDocument("b-2");
const failure = async (call) => {
  try {
    await call();
    return null;
  } catch (error) {
    return { isSvcApiError: error instanceof SvcApiError, status: error.status, detail: error.detail, retryAfter: error.retryAfter ?? null };
  }
};
out.missing = await failure(() => client.getDocument("b-2"));
out.invalid = await failure(() => client.ingest({ document: { id: "bad", sections: "nope", metadata: {}, semantic_identifier: "Bad" } }));
out.ignored = await client.ingest({ ...doc("reports/q3 plan", { doc_updated_at: "2001-01-01T00:00:00Z" }), if_newer: true });
out.stale = await failure(() => client.ingest({ ...doc("reports/q3 plan"), if_version: 7 }));
out.staleBody = await client.ingest({ ...doc("reports/q3 plan"), if_version: 7 }).catch((error) => error.body);
const hook = await client.createWebhook({ url: "https://93.184.216.34/hook", cc_pair_ids: [pair.cc_pair_id], event_types: ["document.indexed"] });
out.webhookSecret = hook.secret.startsWith("whsec_");
out.webhooks = (await client.listWebhooks()).map((endpoint) => [endpoint.url, endpoint.cc_pair_ids, "secret" in endpoint]);
out.webhookDeliveries = await client.listWebhookDeliveries(hook.id, 10);
out.webhookDeleted = (await client.deleteWebhook(hook.id)).id === hook.id;
out.webhookPrivate = await failure(() => client.createWebhook({ url: "http://127.0.0.1:1/hook" }));
out.unauthenticated = await failure(() => createSvcClient({ baseUrl: process.env.SVC_URL, apiKey: "wrong" }).getDocument("x"));
console.log(JSON.stringify(out));
`;

describe("@svc/client from its packed tarball, in plain Node", () => {
  it("covers the routes against a live svc: results, Link-paged listings and typed errors", async () => {
    await writeFile(path.join(project, "script.mjs"), SCRIPT);
    const { stdout } = await run(process.execPath, ["script.mjs"], {
      cwd: project,
      env: { ...process.env, SVC_URL: `${server.base}/api`, SVC_API_KEY: adminKey },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.schemaParses).toBe(true);
    expect(out.ingest).toEqual({ document_id: "reports/q3 plan", already_existed: false });
    expect(out.batch).toEqual({
      results: [
        { document_id: "b-1", already_existed: false },
        { document_id: "b-2", already_existed: false },
        {
          error: {
            status: 422,
            detail: [
              { type: "missing", loc: ["body", "documents", 2, "document", "sections"], msg: "Field required", input: { id: "b-3" } },
              { type: "missing", loc: ["body", "documents", 2, "document", "semantic_identifier"], msg: "Field required", input: { id: "b-3" } },
              { type: "missing", loc: ["body", "documents", 2, "document", "metadata"], msg: "Field required", input: { id: "b-3" } },
            ],
          },
        },
        { document_id: "b-1", already_existed: true },
      ],
    });
    expect(out.document).toMatchObject({ id: "reports/q3 plan", semantic_identifier: "Doc reports/q3 plan", indexing_status: "queued" });
    expect(out.listed).toEqual(["b-1", "b-2", "reports/q3 plan"]);
    expect(out.pairListed).toEqual(["pair-1", "pair-2"]);
    expect(out).toMatchObject({ pairPaused: "PAUSED", pairRenamed: "Renamed", pair: "Renamed", status: ["web"], search: true, metrics: true });
    expect(out.uploaded).toEqual({ accepted: ["pixel.png"], rejected: ["notes.txt"] });
    expect(out.missing).toEqual({ isSvcApiError: true, status: 404, detail: "Document not found", retryAfter: null });
    expect(out.invalid).toEqual({
      isSvcApiError: true,
      status: 422,
      detail: [{ type: "list_type", loc: ["body", "document", "sections"], msg: "Input should be a valid list", input: "nope" }],
      retryAfter: null,
    });
    expect(out.unauthenticated).toMatchObject({ isSvcApiError: true, status: 401 });
    expect(out).toMatchObject({ webhookSecret: true, webhookDeliveries: [], webhookDeleted: true });
    expect(out.webhooks).toEqual([["https://93.184.216.34/hook", [expect.any(Number)], false]]);
    expect(out.webhookPrivate).toMatchObject({ isSvcApiError: true, status: 400 });
    expect(out.ignored).toEqual({ document_id: "reports/q3 plan", already_existed: true, applied: false });
    expect(out.stale).toEqual({ isSvcApiError: true, status: 409, detail: "Document reports/q3 plan is at version 1, not 7.", retryAfter: null });
    expect(out.staleBody).toEqual({ detail: "Document reports/q3 plan is at version 1, not 7.", current_version: 1 });
  }, 180_000);

  it("type-checks a TypeScript caller against the installed .d.ts, and refuses a misspelt field", async () => {
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, lib: ["es2023", "dom"], types: [] } }),
    );
    await writeFile(
      path.join(project, "good.ts"),
      `import { createSvcClient, SvcApiError, type IngestionResult } from "@svc/client";
import { IngestionDocumentSchema } from "@svc/schema";
const client = createSvcClient({ baseUrl: "http://localhost:3000/api", apiKey: "k", retry: { retries: 2 } });
export async function main(): Promise<string> {
  const result: IngestionResult = await client.ingest({ document: { semantic_identifier: "A", sections: [{ text: "a" }], metadata: {} } });
  const guarded: boolean | undefined = (await client.ingest({ if_version: 0, if_newer: true, document: { semantic_identifier: "B", sections: [], metadata: {} } })).applied;
  if (guarded === false) return "not applied";
  IngestionDocumentSchema.parse({});
  try { await client.getDocument(result.document_id); } catch (error) {
    if (error instanceof SvcApiError && error.status === 422) return error.validationErrors.map((item) => item.msg).join();
  }
  return result.document_id;
}
`,
    );
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project, timeout: 120_000 });

    await writeFile(
      path.join(project, "bad.ts"),
      `import { createSvcClient } from "@svc/client";
await createSvcClient({ baseUrl: "http://localhost:3000/api", apiKey: "k" }).ingest({ document: { semantic_identifer: "A", sections: [], metadata: {} } });
`,
    );
    const failed = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project, timeout: 120_000 }).then(
      () => null,
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toContain("bad.ts");
    expect(failed).toContain("semantic_identifer");
  }, 300_000);
});
