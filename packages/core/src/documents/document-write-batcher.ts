import type { Db } from "@svc/db";
import type { PgBoss } from "../jobs/job-queue";
import { writeDocuments, type DocumentWrite, type DocumentWriteOutcome } from "./write-documents";

interface Pending {
  document: DocumentWrite;
  resolve: (written: DocumentWriteOutcome) => void;
  reject: (error: unknown) => void;
}

/** Transactions in flight at once per process; further writes wait and go in the next batch. */
const MAX_CONCURRENT_BATCHES = 4;
const MAX_BATCH_SIZE = 64;

/**
 * Group commit for document writes. A write that arrives while the database is idle goes out at
 * once, alone; writes that arrive while batches are in flight are committed together in the next
 * one: one statement, one job insert and one commit for many requests. Every caller still gets its
 * own result only after the transaction holding its document and its job has committed.
 */
export class DocumentWriteBatcher {
  private readonly pending: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly db: Db,
    private readonly boss: PgBoss,
  ) {}

  write(document: DocumentWrite): Promise<DocumentWriteOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ document, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < MAX_CONCURRENT_BATCHES && this.pending.length > 0) {
      const batch = this.takeBatch();
      this.inFlight += 1;
      void this.commit(batch).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  /** The oldest pending writes, one per document id; later writes of an id wait for a later batch. */
  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const ids = new Set<string>();
    for (let index = 0; index < this.pending.length && batch.length < MAX_BATCH_SIZE; ) {
      const candidate = this.pending[index] as Pending;
      if (ids.has(candidate.document.id)) {
        index += 1;
        continue;
      }
      ids.add(candidate.document.id);
      batch.push(candidate);
      this.pending.splice(index, 1);
    }
    return batch;
  }

  private async commit(batch: Pending[]): Promise<void> {
    try {
      const written = await writeDocuments({ db: this.db, boss: this.boss, documents: batch.map((item) => item.document) });
      batch.forEach((item, index) => item.resolve(written[index] as DocumentWriteOutcome));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // One bad write must not fail the others: retry each alone, so each gets its own outcome.
      await Promise.all(batch.map((item) => this.commit([item])));
    }
  }
}

const batchers = new WeakMap<PgBoss, DocumentWriteBatcher>();

/** The batcher of a process's job queue (one per producer). */
export function documentWriteBatcher(db: Db, boss: PgBoss): DocumentWriteBatcher {
  let batcher = batchers.get(boss);
  if (!batcher) {
    batcher = new DocumentWriteBatcher(db, boss);
    batchers.set(boss, batcher);
  }
  return batcher;
}
