/**
 * LanceDB sizes its compute pool from LANCE_CPU_THREADS, read by the native code the first time it
 * needs the pool. With one thread per core, building an FTS index deadlocks on a 2-core machine
 * (0 % CPU, never returns), so every process that opens the index needs at least 4. This module runs
 * before anything of LanceDB is touched (index.ts imports it first) and raises a smaller value, or an
 * absent one, to the minimum; a larger value set by the operator is kept.
 */
export const MIN_LANCE_CPU_THREADS = 4;

export function ensureLanceCpuThreads(env: NodeJS.ProcessEnv = process.env): number {
  const current = Number.parseInt(env.LANCE_CPU_THREADS ?? "", 10);
  if (Number.isSafeInteger(current) && current >= MIN_LANCE_CPU_THREADS) return current;
  env.LANCE_CPU_THREADS = String(MIN_LANCE_CPU_THREADS);
  return MIN_LANCE_CPU_THREADS;
}

ensureLanceCpuThreads();
