import { connect, type Connection } from "@lancedb/lancedb";

/** An opened search index: one LanceDB database holding one table per index generation. */
export interface SearchIndex {
  connection: Connection;
}

/**
 * Opens (creating it if needed) the index at `uri`: a local directory (SVC_INDEX_DIR), or an object
 * store URI such as `s3://bucket/svc-index` shared by several machines, with that store's credentials
 * and settings in `storageOptions` (LanceDB's names, e.g. `aws_region`). The caller decides the URI;
 * this package reads no environment.
 */
export async function openSearchIndex({
  uri,
  storageOptions,
  readConsistencySeconds = 0,
}: {
  uri: string;
  storageOptions?: Record<string, string>;
  /**
   * How stale a read may be about writes of other processes (LanceDB's readConsistencyInterval).
   * 0, the default: every read checks for a newer table version, so a document written by a worker
   * is found by the web process's next search (a document is searchable once its job commits).
   */
  readConsistencySeconds?: number;
}): Promise<SearchIndex> {
  const connection = await connect(uri, {
    readConsistencyInterval: readConsistencySeconds,
    ...(storageOptions === undefined ? {} : { storageOptions }),
  });
  return { connection };
}

/** Closes the index's connection; its tables must not be used afterwards. */
export function closeSearchIndex(index: SearchIndex): void {
  index.connection.close();
}
