import type { Db } from "@svc/db";

/**
 * This svc's instance id: the database's identity, a random UUID its first migration stored once
 * (`search_index_identity`, which also marks the search index as this database's). A reset database
 * gets a new one, so a client's state recorded against the old one no longer matches.
 */
export async function readInstanceId({ db }: { db: Db }): Promise<string> {
  const [identity] = await db.$queryRaw<{ database_id: string }[]>`SELECT database_id::text FROM search_index_identity`;
  if (!identity) throw new Error("search_index_identity has no row: apply the migrations");
  return identity.database_id;
}
