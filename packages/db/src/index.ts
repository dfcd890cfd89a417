export { DB_ACQUIRE_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS, createDb, isDatabaseStalled, pingDatabase, querySql, transactionCancelledOnAbort, whenDatabaseAnswers, withCancelOnAbort, withSqlTransaction } from "./client";
export type { CreateDbOptions, Db, DbOrTx, SqlClient, Tx } from "./client";
export { Prisma } from "./generated/prisma/client";
export { executeSql, queryStatement, selectSql, sqlAlias, type AnyTx, type NamedStatement } from "./sql";
export * from "./generated/prisma/enums";
export type * from "./generated/prisma/models";
export { listenToChannel, type ChannelListener, type ListenToChannelOptions } from "./listen";
export { isDatabaseUnavailable, isQueryCanceled } from "./is-database-unavailable";
