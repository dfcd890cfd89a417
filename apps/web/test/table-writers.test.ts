// ARCHITECTURE.md, "The SQL layer": each table has one module that writes it. This test reads every
// production source file for the statements that write a table (SQL's INSERT INTO / UPDATE / DELETE
// FROM, Prisma's create / update / upsert / delete on the table's delegate) and checks that the
// files writing each table of prisma/schema.prisma are exactly the writer declared here, so a write
// added inline in a caller, or a table added without a writer, fails.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listProductionFiles, REPO_ROOT } from "./import-graph";

const CC_PAIR_ROWS = "packages/core/src/indexing/cc-pair-rows.ts";
const DOCUMENT_ROWS = "packages/core/src/indexing/document-rows.ts";

/** Each table's writers, as ARCHITECTURE.md lists them. */
const WRITERS: Record<string, string[]> = {
  connector: [CC_PAIR_ROWS],
  credential: [CC_PAIR_ROWS],
  connector_credential_pair: [CC_PAIR_ROWS],
  // The one exception: ingestion's upsert inserts new links in the statement that writes the documents.
  document_by_cc_pair: [CC_PAIR_ROWS, DOCUMENT_ROWS],
  document: [DOCUMENT_ROWS],
  document_section: [DOCUMENT_ROWS],
  document_chunk: ["packages/core/src/indexing/write-generation-chunks.ts"],
  index_attempt: ["packages/core/src/indexing/index-attempts.ts"],
  index_generation: ["packages/core/src/search-index/index-generations.ts"],
  index_rebuild_minute: ["packages/core/src/search-index/index-generations.ts"],
  index_write_intent: ["packages/core/src/search-index/index-write-intents.ts"],
  rebuild_failure: ["packages/core/src/indexing/rebuild-failures.ts"],
  federated_connector: ["packages/core/src/connectors/manage-federated-connectors.ts"],
  api_key: ["packages/core/src/auth/manage-api-keys.ts"],
  api_key_scope: ["packages/core/src/auth/manage-api-keys.ts"],
  admin_session: ["packages/core/src/auth/admin-session-rows.ts"],
  uploaded_file: ["packages/core/src/files/upload-files.ts"],
  worker_heartbeat: ["packages/core/src/health/worker-heartbeats.ts"],
  svc_event: ["packages/core/src/events/event-rows.ts"],
  webhook_endpoint: ["packages/core/src/webhooks/manage-webhook-endpoints.ts"],
  webhook_delivery: ["packages/core/src/webhooks/webhook-deliveries.ts"],
  webhook_cursor: ["packages/core/src/webhooks/webhook-deliveries.ts"],
  // Its one row comes from a migration.
  search_index_identity: [],
};

const PRODUCTION_ROOTS = ["packages", "apps", "scripts"];

/** The tables of the Prisma schema, by the name of their Prisma delegate (`ApiKeyScope` → `apiKeyScope`). */
function readTables(): Map<string, string> {
  const schema = readFileSync(path.join(REPO_ROOT, "prisma/schema.prisma"), "utf8");
  const tables = new Map<string, string>();
  for (const [, model, body] of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(body!)?.[1];
    if (model && table) tables.set(model.charAt(0).toLowerCase() + model.slice(1), table);
  }
  return tables;
}

/** The tables each file writes, as `table → files`. */
function readWriters(tables: Map<string, string>): Map<string, Set<string>> {
  const tableNames = new Set(tables.values());
  const writers = new Map<string, Set<string>>();
  const note = (table: string, file: string) => {
    if (!writers.has(table)) writers.set(table, new Set());
    writers.get(table)!.add(file);
  };
  const files = PRODUCTION_ROOTS.flatMap((root) => listProductionFiles(root)).filter((file) => !file.split(path.sep).includes("generated"));
  for (const file of files) {
    const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
    // SQL keywords are upper case in svc's statements; the table may be quoted, as migrations do.
    for (const [, table] of text.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+"?([a-z_]+)"?/g)) {
      if (tableNames.has(table!)) note(table!, file);
    }
    for (const [, delegate] of text.matchAll(/\.(\w+)\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\s*\(/g)) {
      const table = tables.get(delegate!);
      if (table) note(table, file);
    }
  }
  return writers;
}

describe("table writers", () => {
  const tables = readTables();

  it("declare a writer for every table of the schema, and no other", () => {
    expect(Object.keys(WRITERS).sort()).toEqual([...tables.values()].sort());
  });

  it("write each table only from its declared module", () => {
    const writers = readWriters(tables);
    const found = Object.fromEntries([...tables.values()].sort().map((table) => [table, [...(writers.get(table) ?? [])].sort()]));
    expect(found).toEqual(Object.fromEntries(Object.entries(WRITERS).sort(([a], [b]) => a.localeCompare(b)).map(([table, files]) => [table, [...files].sort()])));
  });
});
