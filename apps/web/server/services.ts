import { ApiKeyCache, ApiKeyUseRecorder, EventHub, searchIndexAt, startJobQueue, type PgBoss, type SearchIndexTables } from "@svc/core";
import { createDb, type Db } from "@svc/db";
import { webEnv } from "./env";

export interface Services {
  db: Db;
  boss: PgBoss;
  apiKeys: ApiKeyCache;
  /** Each key's "last used", written in the background. */
  apiKeyUses: ApiKeyUseRecorder;
  /** The search index, opened once per process (searchIndexAt keeps one handle per location). */
  index: SearchIndexTables;
  searchTimeoutMs: number;
  /** The process's one reader of the event outbox, shared by its event streams. */
  events: EventHub;
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
  const db = createDb({
    databaseUrl: env.DATABASE_URL,
    poolSize: env.SVC_DB_POOL_SIZE,
    applicationName: "svc-web",
    statementTimeoutMs: env.SVC_STATEMENT_TIMEOUT_MS,
    acquireTimeoutMs: env.SVC_DB_ACQUIRE_TIMEOUT_MS,
    connectTimeoutMs: env.SVC_DB_CONNECT_TIMEOUT_MS,
  });
  // With the database down, every request tries again; none may leave a pool behind.
  const boss = await startJobQueue({ databaseUrl: env.DATABASE_URL, role: "producer", poolSize: 2 }).catch(async (error: unknown) => {
    await db.$disconnect().catch(() => undefined);
    throw error;
  });
  const apiKeys = new ApiKeyCache();
  await apiKeys.listen(env.DATABASE_URL, "svc-web-listen");
  return {
    db,
    boss,
    apiKeys,
    apiKeyUses: new ApiKeyUseRecorder(db),
    index: searchIndexAt(env.SVC_INDEX_DIR),
    searchTimeoutMs: env.SVC_SEARCH_TIMEOUT_MS,
    events: new EventHub({ db, maxStreams: env.SVC_MAX_EVENT_STREAMS }),
  };
}

/** Closes this process's services (tests, shutdown); the next getServices() opens new ones. */
export async function closeServices(): Promise<void> {
  const services = await holder.svcServices?.catch(() => undefined);
  holder.svcServices = undefined;
  if (!services) return;
  await services.apiKeyUses.flush();
  await services.apiKeys.close();
  await services.index.close();
  await services.boss.stop({ graceful: false, close: true });
  await services.db.$disconnect();
}
