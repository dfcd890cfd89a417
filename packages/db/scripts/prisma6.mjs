// Runs one Prisma 6.19.3 CLI command (`migrate deploy`, `migrate status`, `migrate reset`,
// `migrate diff`, ...) with its wasm schema engine. Prisma 7's `migrate` needs a native engine that
// no npm package ships; the 6.x CLI does the same work through a driver adapter. Usage:
//   DATABASE_URL=postgres://... node scripts/prisma6.mjs migrate deploy
// Each workaround below is explained in prisma/README.md.
import crypto from "node:crypto";
import fs from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const schemaPath = path.resolve(packageDir, "../../prisma/schema.prisma");
const derivedSchemaPath = path.resolve(packageDir, "../../prisma/.schema6.prisma");
const configPath = path.join(packageDir, "prisma6.config.ts");
// prisma6.config.ts hands the CLI whatever this script puts here (see the config for why).
const ADAPTER_SLOT = Symbol.for("svc.db.prisma6AdapterFactory");
const MAIN_SLOT = Symbol.for("svc.db.prisma6Main");

const requireFromPackage = createRequire(path.join(packageDir, "package.json"));
// The pg instance adapter-pg itself uses, so that the patch below reaches its queries.
const requireFromAdapter = createRequire(requireFromPackage.resolve("@prisma/adapter-pg"));
const pg = requireFromAdapter("pg");
const { parse: parseConnectionString } = createRequire(requireFromAdapter.resolve("pg"))("pg-connection-string");

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL must be set (the database to migrate).");
  process.exit(1);
}

process.env.CHECKPOINT_DISABLE = "1";
process.env.PRISMA_HIDE_UPDATE_MESSAGE = "1";
// At start-up the CLI looks for its native engines and downloads missing ones, which fails here.
// The js engine uses neither, so pointing both at any existing file is enough.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ||= process.execPath;
process.env.PRISMA_QUERY_ENGINE_LIBRARY ||= process.execPath;

writeDerivedSchema();
reportCatalogTypesAsText();
globalThis[ADAPTER_SLOT] = createAdapterFactory(databaseUrl);
process.exit(await runCli([...process.argv.slice(2), "--config", configPath]));

/**
 * Prisma 6 insists on a `url` in the datasource block and Prisma 7 rejects one, so the 6.x CLI reads
 * a copy of schema.prisma with the url added. The generator block goes: it is Prisma 7's, and the
 * 6.x CLI would otherwise generate a Prisma 6 client over the real one after `migrate reset`.
 */
function writeDerivedSchema() {
  const source = fs.readFileSync(schemaPath, "utf8");
  let datasources = 0;
  const derived = source
    .replace(/^generator\s+\w+\s*\{[^}]*\}\s*/gm, "")
    .replace(/^datasource\s+\w+\s*\{/gm, (opening) => {
      datasources += 1;
      return `${opening}\n  url = env("DATABASE_URL")`;
    });
  if (datasources !== 1) throw new Error(`expected one datasource block in ${schemaPath}, found ${datasources}`);
  const content = `// Derived from schema.prisma by packages/db/scripts/prisma6.mjs for the Prisma 6 CLI. Do not edit.\n${derived}`;
  if (fs.existsSync(derivedSchemaPath) && fs.readFileSync(derivedSchemaPath, "utf8") === content) return;
  // Written aside and renamed: several migrations (parallel test setups) may start at once.
  const temporaryPath = `${derivedSchemaPath}.${process.pid}.tmp`;
  fs.writeFileSync(temporaryPath, content);
  fs.renameSync(temporaryPath, derivedSchemaPath);
}

/**
 * The engine reads catalog columns of type `name` (oid 19) and `"char"` (oid 18), and adapter-pg
 * refuses to map `"char"` (and `name` in some versions). Both arrive as plain text, so this process
 * reports them as text (oid 25) before pg picks a parser and adapter-pg picks a column type.
 */
function reportCatalogTypesAsText() {
  const TEXT_OID = 25;
  const catalogTextOids = new Set([18, 19]);
  const addFields = pg.Result.prototype.addFields;
  pg.Result.prototype.addFields = function addFieldsAsText(fields) {
    for (const field of fields) {
      if (catalogTextOids.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
    }
    return addFields.call(this, fields);
  };
}

/** The driver adapter factory the engine migrates through, with the fixes it needs here. */
function createAdapterFactory(url) {
  // Separate fields rather than a connection string: adapter-pg makes shadow databases by
  // overriding `database`, which a connection string would silently take precedence over.
  const connection = Object.fromEntries(
    Object.entries(parseConnectionString(url)).filter(([, value]) => value !== undefined && value !== null),
  );
  const main = new PrismaPg(connection);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => runScriptsWhole(await main.connect()),
    // adapter-pg's own version drops the shadow database while its pool is still connected to it,
    // which Postgres refuses; this one closes the pool first.
    async connectToShadowDb() {
      const name = `prisma_migrate_shadow_db_${crypto.randomUUID()}`;
      await runStatement(connection, `CREATE DATABASE "${name}"`);
      const shadow = runScriptsWhole(await new PrismaPg({ ...connection, database: name }).connect());
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await runStatement(connection, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      };
      return shadow;
    },
  };
}

/**
 * adapter-pg runs a migration script by splitting it on every ";" (even inside strings, comments and
 * function bodies) and sending the pieces one by one. Sent whole as one simple query, the script runs
 * as Postgres runs any multi-statement query: in one implicit transaction, as with Prisma's native
 * engine.
 */
function runScriptsWhole(adapter) {
  const pool = adapter.underlyingDriver();
  adapter.executeScript = async (script) => {
    try {
      await pool.query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

async function runStatement(connection, sql) {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Runs the CLI's main function and returns its exit code. The CLI bundle starts main() only when it
 * is the process's entry module, and after a successful command it leaves exiting to the event loop,
 * which the wasm engine keeps busy for another 10 s or more with the timeouts it races its database
 * calls against (the migrate advisory lock among them). So the bundle is loaded as an ordinary
 * module with one line appended that hands main() over, and this process exits when main()'s
 * promise settles.
 */
async function runCli(args) {
  const cliPath = requireFromPackage.resolve("prisma6/build/index.js");
  const source = fs.readFileSync(cliPath, "utf8");
  const entry = /eval\("require\.main === module"\)&&(\w+)\(\)\.then\(/.exec(source);
  if (!entry) {
    throw new Error(`cannot find the entry point of ${cliPath}; the prisma6 package has changed, see prisma/README.md`);
  }
  // The bundle reads its arguments from process.argv when it loads.
  process.argv = [process.execPath, cliPath, ...args];
  const cli = new Module(cliPath);
  cli.filename = cliPath;
  cli.paths = Module._nodeModulePaths(path.dirname(cliPath));
  cli._compile(`${source}\n;globalThis[Symbol.for(${JSON.stringify(MAIN_SLOT.description)})] = ${entry[1]};\n`, cliPath);
  try {
    return await globalThis[MAIN_SLOT]();
  } catch (error) {
    // What the bundle's own entry does with a thrown error (or a list of them), minus its offer to
    // open a GitHub issue.
    const errors = typeof error === "object" && error !== null && Symbol.iterator in error ? [...error] : [error];
    for (const each of errors) {
      console.error(`Error: ${each instanceof Error ? each.message : String(each)}`);
    }
    return 1;
  }
}
