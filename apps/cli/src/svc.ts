#!/usr/bin/env node
import { createDb } from "@svc/db";
import { runKeysCommand, UsageError } from "./commands/keys";
import { runPairsCommand } from "./commands/pairs";
import { runIndexCommand } from "./commands/search-index";
import { runStartCommand } from "./commands/start";
import { openDatabase } from "./database";
import { cliEnv } from "./env";
import { prepareDatabase } from "@svc/core";

const USAGE = `svc: document ingestion and indexing

Usage:
  svc start                      start the database (embedded unless DATABASE_URL is set), web and worker;
                               restarts a part that dies, stops everything in order on Ctrl+C/SIGTERM
  svc start web|worker           run one part alone against DATABASE_URL (e.g. more workers elsewhere)
  svc keys create --name NAME --role admin|curator|basic|limited [--scope 3,4]
  svc keys list
  svc keys revoke ID
  svc pairs create --name NAME --source SOURCE --access public|private|sync
  svc pairs list
  svc pairs pause ID
  svc pairs resume ID
  svc pairs delete ID          mark DELETING; the worker removes the pair and its documents
  svc index status             the search index's generation and the rebuild in progress
  svc index rebuild [--chunk-tokens N] [--text-search-config NAME]
                               rebuild the search index (the worker does it in the background)
  svc index cancel             cancel the running rebuild`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const env = cliEnv();
  if (command === "start") return runStartCommand(env, rest);
  if (command !== "keys" && command !== "pairs" && command !== "index") throw new UsageError(USAGE);
  const database = await openDatabase(env);
  // An interrupted command still stops an embedded server it started (on process exit).
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) process.once(signal, () => process.exit(code));
  try {
    await prepareDatabase(database.databaseUrl);
    const db = createDb({ databaseUrl: database.databaseUrl, poolSize: 1 });
    try {
      if (command === "keys") await runKeysCommand(db, rest);
      else if (command === "pairs") await runPairsCommand({ db, databaseUrl: database.databaseUrl }, rest);
      else await runIndexCommand({ db, databaseUrl: database.databaseUrl }, rest);
    } finally {
      await db.$disconnect();
    }
  } finally {
    await database.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
