import { connect, Session, type Connection } from "@lancedb/lancedb";
import { inProcessGates, type TableGates } from "./write-gate";

/** An opened search index: one LanceDB database holding one table per index generation. */
export interface SearchIndex {
  connection: Connection;
  /** The connection's caches (index pages, table metadata): their size is the native memory they hold. */
  session: Session;
  /** Each table's write gate (see TableGate). */
  gates: TableGates;
}

/**
 * Upper bounds of LanceDB's in-memory caches, in bytes. Its defaults (6 GiB of index data, 1 GiB of
 * table metadata) suit a search server; a writer caches what each commit and each index merge produced,
 * entries it never reads again, so its caches fill towards those bounds.
 */
export interface SearchIndexCacheBytes {
  index: number;
  metadata: number;
}

/**
 * Tables this connection creates address their rows by stable ids, which compaction keeps: the
 * worker's merges then compact small fragments without rewriting every index to the rows' new
 * addresses (~40 % less work a merge; bench/RESULTS.md, issue 19). Tables created before keep
 * their addresses until a rebuild replaces them.
 */
const STABLE_ROW_IDS = { new_table_enable_stable_row_ids: "true" };

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
  cacheBytes,
  gates = inProcessGates(),
}: {
  uri: string;
  storageOptions?: Record<string, string>;
  /**
   * How stale a read may be about writes of other processes (LanceDB's readConsistencyInterval).
   * 0, the default: every read checks for a newer table version, so a document written by a worker
   * is found by the web process's next search (a document is searchable once its job commits).
   */
  readConsistencySeconds?: number;
  /** LanceDB's own cache sizes when absent. */
  cacheBytes?: SearchIndexCacheBytes;
  /** How its tables' compactions and updating writes are kept apart: within this process when absent. */
  gates?: TableGates;
}): Promise<SearchIndex> {
  const session = cacheBytes === undefined ? Session.default() : new Session(BigInt(cacheBytes.index), BigInt(cacheBytes.metadata));
  // In the options: connect's third argument, also a session, goes unused by a local database (0.39).
  const connection = await connect(uri, {
    readConsistencyInterval: readConsistencySeconds,
    session,
    storageOptions: { ...STABLE_ROW_IDS, ...storageOptions },
  });
  return { connection, session, gates };
}

/** Closes the index's connection; its tables must not be used afterwards. */
export function closeSearchIndex(index: SearchIndex): void {
  index.connection.close();
}
