import { isDatabasePrepared, prepareDatabase } from "@svc/core";
import { createDb, type Db } from "@svc/db";
import { openDatabase } from "./database";
import { cliEnv } from "./env";

/** What a database command gets: the client, and the URL for what opens its own connections (pg-boss). */
export interface DatabaseContext {
  db: Db;
  databaseUrl: string;
}

/**
 * Runs `work` against the database (DATABASE_URL, or the embedded one, started for the command when
 * no `svc start` serves it), acting as the operator through the same core functions as the API.
 */
export async function withDatabase(work: (context: DatabaseContext) => Promise<void>): Promise<void> {
  const database = await openDatabase(cliEnv());
  // An interrupted command still stops an embedded server it started (on process exit).
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) process.once(signal, () => process.exit(code));
  try {
    const db = createDb({ databaseUrl: database.databaseUrl, poolSize: 1 });
    try {
      // Preparing takes seconds even with nothing to do; a database `svc start` prepared is usual.
      if (!(await isDatabasePrepared({ db }))) await prepareDatabase(database.databaseUrl);
      await work({ db, databaseUrl: database.databaseUrl });
    } finally {
      await db.$disconnect();
    }
  } finally {
    await database.stop();
  }
}
