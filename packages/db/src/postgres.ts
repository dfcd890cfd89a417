// Talking to the Postgres server itself (creating and dropping databases), not through Prisma.
import pg from "pg";

/** The URL with its database replaced: same server, user and options. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (!name) throw new Error(`${describeDatabase(databaseUrl)} names no database`);
  return name;
}

/** Protocol, host, port and database, without the credentials: for messages. */
export function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Whether a pg error carries this SQLSTATE. */
export function isPgError(error: unknown, sqlState: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === sqlState;
}

/** Runs `work` with a single connection to the server's `postgres` database, closed afterwards. */
export async function withServerClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
