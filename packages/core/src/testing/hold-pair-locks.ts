import type { Db } from "@svc/db";

export interface HeldLocks {
  release: () => Promise<void>;
}

/**
 * Takes the pairs' row locks as indexing takes them (FOR NO KEY UPDATE, in id order, which
 * ingestion's FOR KEY SHARE does not wait for) and keeps them until release(): a worker's transaction
 * for a document of these pairs then stops half way (marked `indexing`, chunks written, nothing
 * committed), the point a test wants to look at, or kill the worker at.
 */
export async function holdPairLocks(db: Db, ccPairIds: number[], timeoutMs = 60_000): Promise<HeldLocks> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked: () => void = () => {};
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const transaction = db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM connector_credential_pair WHERE id = ANY(${ccPairIds}) ORDER BY id FOR NO KEY UPDATE`;
      locked();
      await released;
    },
    { timeout: timeoutMs },
  );
  // A transaction that fails before taking the locks rejects here instead of hanging.
  await Promise.race([lockTaken, transaction]);
  return {
    release: async () => {
      release();
      await transaction;
    },
  };
}
