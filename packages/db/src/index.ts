export { createDb } from "./client";
export type { Db, DbOrTx, Tx, CreateDbOptions } from "./client";
export { Prisma } from "./generated/prisma/client";
export * from "./generated/prisma/enums";
export type * from "./generated/prisma/models";
