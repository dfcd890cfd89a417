import { startJobQueue, type PgBoss } from "@svc/core";
import { createDb, type Db } from "@svc/db";
import { webEnv } from "./env";

export interface Services {
  db: Db;
  boss: PgBoss;
}

// One database pool and one pg-boss producer per server process, created on first use. Kept on
// globalThis so that dev-mode module reloads do not open new pools.
const holder = globalThis as typeof globalThis & { svcServices?: Promise<Services> };

export function getServices(): Promise<Services> {
  holder.svcServices ??= createServices().catch((error: unknown) => {
    holder.svcServices = undefined;
    throw error;
  });
  return holder.svcServices;
}

async function createServices(): Promise<Services> {
  const env = webEnv();
  const db = createDb({ databaseUrl: env.DATABASE_URL, poolSize: env.SVC_DB_POOL_SIZE });
  const boss = await startJobQueue({ databaseUrl: env.DATABASE_URL, role: "producer", poolSize: 2 });
  return { db, boss };
}
