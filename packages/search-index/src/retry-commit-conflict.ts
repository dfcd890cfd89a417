/** Attempts of one write before its conflict is reported. */
const MAX_ATTEMPTS = 8;

/** LanceDB's optimistic commits fail this way when another writer committed first. */
function isCommitConflict(error: unknown): boolean {
  return error instanceof Error && /conflict|retryable commit|concurrent/i.test(error.message);
}

/**
 * Runs a write, again on a commit conflict (several workers write one table), with a growing,
 * jittered pause so the writers stop colliding. The writes given here are idempotent (a replace
 * or a delete by document id), so running one again is harmless.
 */
export async function retryCommitConflict<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isCommitConflict(error)) throw error;
      const pauseMs = Math.random() * 25 * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
