import {
  closeSearchIndex,
  createGenerationTable,
  dropGenerationTable,
  openGenerationTable,
  openSearchIndex,
  type GenerationTable,
  type SearchIndex,
  type SearchIndexCacheBytes,
  type TableGates,
} from "@svc/search-index";

/**
 * How a process opens the index: an object store's settings, bounds for LanceDB's caches, and how its
 * tables' compactions and updating writes keep apart (within the process when absent; processes that
 * write the index beside another use advisoryTableGates).
 */
export interface SearchIndexOptions {
  storageOptions?: Record<string, string>;
  cacheBytes?: SearchIndexCacheBytes;
  gates?: TableGates;
}

/**
 * A process's handle on the search index (SVC_INDEX_DIR): the LanceDB connection, opened on first
 * use, and the generation tables opened through it, kept open (opening one reads its manifest). The
 * connection reads with strong consistency, so a table kept open still sees every commit of other
 * processes. A table dropped or lost underneath (a refill, a removed directory) fails its next use:
 * the caller forgets it and the use after that opens it again.
 */
export class SearchIndexTables {
  private connection: Promise<SearchIndex> | undefined;
  private readonly tables = new Map<number, Promise<GenerationTable | null>>();
  private mergeHolds = 0;

  constructor(
    readonly uri: string,
    private readonly options: SearchIndexOptions = {},
  ) {}

  /** The index's connection, opened on first use (again after a failed open). */
  async index(): Promise<SearchIndex> {
    this.connection ??= openSearchIndex({ uri: this.uri, ...this.options }).catch(
      (error: unknown) => {
        this.connection = undefined;
        throw error;
      },
    );
    return this.connection;
  }

  /** Generation `generationId`'s table, or null when the index has none (search then finds nothing). */
  async readable(generationId: number): Promise<GenerationTable | null> {
    let table = this.tables.get(generationId);
    if (table === undefined) {
      table = this.index().then((index) => openGenerationTable({ index, generationId }));
      this.tables.set(generationId, table);
    }
    const opened = await table.catch((error: unknown) => {
      this.forget(generationId);
      throw error;
    });
    // A missing table may be created by a worker at any moment: ask again next time.
    if (opened === null) this.forget(generationId);
    return opened;
  }

  /** The generation's table for writing, created (empty, with its indexes) when the index lacks it. */
  async writable(generation: { id: number; textSearchConfig: string }): Promise<GenerationTable> {
    const existing = await this.readable(generation.id);
    if (existing !== null) return existing;
    const index = await this.index();
    const created = createGenerationTable({ index, generationId: generation.id, textSearchConfig: generation.textSearchConfig });
    this.tables.set(generation.id, created);
    return created.catch((error: unknown) => {
      this.forget(generation.id);
      throw error;
    });
  }

  /** Drops the cached handle of a table that failed (it is opened again on next use). */
  forget(generationId: number): void {
    this.tables.delete(generationId);
  }

  /** Forgets every table (after the index was cleared). */
  forgetAll(): void {
    this.tables.clear();
  }

  /** Removes a retired or canceled generation's table. */
  async drop(generationId: number): Promise<void> {
    this.forget(generationId);
    await dropGenerationTable({ index: await this.index(), generationId });
  }

  /** The bytes LanceDB's caches hold now (0 before the connection opens): native memory, outside V8's heap. */
  async cachedBytes(): Promise<number> {
    const connection = this.connection;
    return connection ? connection.then(({ session }) => Number(session.sizeBytes()), () => 0) : 0;
  }

  /**
   * Holds this process's scheduled merges off (MergeSchedule) until the returned function is called:
   * indexing holds them while it reads, chunks and writes a large document.
   */
  holdMerges(): () => void {
    this.mergeHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.mergeHolds--;
    };
  }

  /** Whether a large document's indexing holds merges off now. */
  get mergesHeld(): boolean {
    return this.mergeHolds > 0;
  }

  /** Closes the connection; the next use opens it again. */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.tables.clear();
    if (connection) closeSearchIndex(await connection);
  }
}

/** One handle per index location per process, shared by every copy of this module (Next bundles it more than once). */
const holder = globalThis as typeof globalThis & { svcSearchIndexes?: Map<string, SearchIndexTables> };

/**
 * The process's handle on the index at `uri` (a directory, or an object-store URI whose settings
 * come in `options.storageOptions`), opened with the options of the first call: the web's REST handlers, its tRPC procedures and a worker in the same
 * process all get the same one.
 */
export function searchIndexAt(uri: string, options?: SearchIndexOptions): SearchIndexTables {
  holder.svcSearchIndexes ??= new Map();
  let tables = holder.svcSearchIndexes.get(uri);
  if (tables === undefined) {
    tables = new SearchIndexTables(uri, options);
    holder.svcSearchIndexes.set(uri, tables);
  }
  return tables;
}

/** Closes and forgets the handle of `uri` (tests, shutdown). */
export async function closeSearchIndexAt(uri: string): Promise<void> {
  const tables = holder.svcSearchIndexes?.get(uri);
  holder.svcSearchIndexes?.delete(uri);
  await tables?.close();
}
