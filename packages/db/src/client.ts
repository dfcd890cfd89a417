import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type Db = PrismaClient;
/** The client handed to a callback of `db.$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
/** Anything core functions can query through: the client itself or an open transaction. */
export type DbOrTx = Db | Tx;

export interface CreateDbOptions {
  databaseUrl: string;
  /** Connections in this process's pool. */
  poolSize?: number;
}

/** One client per process: it owns a pg pool. */
export function createDb({ databaseUrl, poolSize = 10 }: CreateDbOptions): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize });
  return new PrismaClient({ adapter });
}
