// Test helpers for the worker's end-to-end tests: the built worker (dist/main.js) as a child process,
// documents ingested in bulk, and the checks that indexing left the index consistent.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OPERATOR_PRINCIPAL, startIndexRebuild, type PgBoss } from "@svc/core";
import { ingestTestDocument, removeTestSearchIndex, testSearchIndex } from "@svc/core/testing";
import type { Db } from "@svc/db";
import { waitFor } from "@svc/db/testing";
import { afterAll, expect } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The built entry of each process this app runs: the worker, and the index maintenance process. */
const entries = { worker: path.resolve(here, "../../dist/main.js"), maintenance: path.resolve(here, "../../dist/maintain.js") };
type Part = keyof typeof entries;
/** The node flags and environment `svc start` gives each (apps/cli). */
const svcStartSettings = JSON.parse(readFileSync(path.resolve(here, "../../../cli/src/commands/child-settings.json"), "utf8")) as Record<
  Part,
  { nodeFlags: string[]; env: Record<string, string> }
>;
const KEPT_OUTPUT_CHARACTERS = 8_000;

export interface WorkerProcess {
  child: ChildProcess;
  /** The end of what the worker printed (stdout and stderr), for failure messages. */
  output: () => string;
  /** Whether the process is still running. */
  alive: () => boolean;
  /** SIGTERM, then its exit code. */
  stop: () => Promise<number | null>;
  /** SIGKILL (kill -9): no shutdown code runs. */
  kill: () => Promise<void>;
}

/** How a test starts a process of this app. */
export interface SpawnOptions {
  /** The worker (the default), or the index maintenance process (dist/maintain.js). */
  part?: Part;
  /** With the node flags and allocator settings `svc start` gives that part (a test of its memory). */
  asSvcStartRunsIt?: boolean;
}

/**
 * Starts the built worker (or `part`) on `databaseUrl`; `env` adds to or overrides its environment.
 * It writes the search index of the test file (testSearchIndex) unless `env.SVC_INDEX_DIR` says
 * otherwise: every worker of the file shares it, as the workers of one deployment share theirs, and
 * the test reads it to check what they wrote.
 */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}, { part = "worker", asSvcStartRunsIt = false }: SpawnOptions = {}): WorkerProcess {
  const { nodeFlags, env: startEnv } = asSvcStartRunsIt ? svcStartSettings[part] : { nodeFlags: [], env: {} };
  const child = spawn(process.execPath, [...nodeFlags, entries[part]], {
    // Attempts never reopen unless a test asks otherwise: most count one attempt per drained queue.
    env: {
      ...startEnv,
      ...process.env,
      DATABASE_URL: databaseUrl,
      SVC_ATTEMPT_QUIET_SECONDS: "0",
      SVC_INDEX_DIR: testSearchIndex().uri,
      SVC_INDEX_OPTIMIZE_SECONDS: "1",
      ...env,
    },
    stdio: "pipe",
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-KEPT_OUTPUT_CHARACTERS);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    output: () => output,
    alive,
    stop: async () => {
      if (alive()) child.kill("SIGTERM");
      return exited;
    },
    kill: async () => {
      if (alive()) child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * For a test file's top level, after its database is opened: returns a function that starts the
 * built worker (or another part: SpawnOptions) on `databaseUrl`; whatever it started is killed after the file's tests, before the
 * database closes (vitest runs afterAll hooks last registered first).
 */
export function useWorkerProcess(databaseUrl: string): (env?: Record<string, string>, options?: SpawnOptions) => WorkerProcess {
  const started: WorkerProcess[] = [];
  afterAll(async () => {
    for (const worker of started) await worker.kill();
    await removeTestSearchIndex();
  });
  return (env, options) => {
    const worker = spawnWorker(databaseUrl, env, options);
    started.push(worker);
    return worker;
  };
}

/** Ingests documents through the core ingestion path, `concurrency` at a time (they group-commit). */
export async function ingestMany(
  { db, boss }: { db: Db; boss: PgBoss },
  documents: { id: string; text: string; ccPairId?: number }[],
  concurrency = 200,
): Promise<void> {
  for (let start = 0; start < documents.length; start += concurrency) {
    await Promise.all(
      documents
        .slice(start, start + concurrency)
        .map(({ id, text, ccPairId }) => ingestTestDocument({ db, boss }, { id, text, title: `Title of ${id}`, ccPairId })),
    );
  }
}

/** How many documents are indexed at their latest version, and how many there are. */
export async function indexedProgress(db: Db): Promise<{ indexed: number; total: number }> {
  const [row] = await db.$queryRaw<{ indexed: number; total: number }[]>`
    SELECT (count(*) FILTER (WHERE indexing_status = 'indexed' AND indexed_version = version))::int AS indexed,
      count(*)::int AS total
    FROM document`;
  return row ?? { indexed: 0, total: 0 };
}

/**
 * Everything that would show an index left inconsistent: documents not indexed at their latest
 * version, documents whose chunk rows (in the current index generation, the one search reads) are not
 * exactly chunk_index 0..chunk_count-1, pairs whose docs_indexed differs from their indexed links,
 * attempts still open.
 */
export async function indexInconsistencies(db: Db) {
  const [notIndexed, chunkMismatches, countMismatches, openAttempts] = await Promise.all([
    db.$queryRaw<{ id: string; status: string }[]>`
      SELECT id, indexing_status::text AS status FROM document
      WHERE indexing_status <> 'indexed' OR indexed_version IS DISTINCT FROM version ORDER BY id LIMIT 20`,
    db.$queryRaw<{ id: string; chunk_count: number | null; chunks: number }[]>`
      SELECT d.id, d.chunk_count, count(c.chunk_index)::int AS chunks FROM document d
      LEFT JOIN document_chunk c ON c.document_id = d.id
        AND c.generation_id = (SELECT g.id FROM index_generation g WHERE g.status = 'current')
      GROUP BY d.id, d.chunk_count
      HAVING d.chunk_count IS NULL OR count(c.chunk_index) <> d.chunk_count
        OR count(DISTINCT c.chunk_index) <> count(c.chunk_index)
        OR COALESCE(min(c.chunk_index), 0) <> 0 OR COALESCE(max(c.chunk_index), -1) <> d.chunk_count - 1
      ORDER BY d.id LIMIT 20`,
    db.$queryRaw<{ id: number }[]>`
      SELECT p.id FROM connector_credential_pair p LEFT JOIN document_by_cc_pair l ON l.cc_pair_id = p.id
      GROUP BY p.id HAVING p.docs_indexed <> count(l.document_id) FILTER (WHERE l.has_been_indexed)`,
    db.indexAttempt.count({ where: { status: "in_progress" } }),
  ]);
  return { notIndexed, chunkMismatches, countMismatches, openAttempts };
}

/** Documents whose chunks do not hold `marker`: the text of their latest version was not indexed. */
export async function documentsMissingText(db: Db, ids: string[], marker: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM document d WHERE d.id = ANY(${ids})
      AND NOT EXISTS (SELECT 1 FROM document_chunk c WHERE c.document_id = d.id AND c.content LIKE ${`%${marker}%`})`;
  return rows.map((row) => row.id);
}

/**
 * What would show the search index out of step with PostgreSQL, for the current generation: chunks
 * PostgreSQL has that the index lacks (lost), rows the index has that PostgreSQL does not (orphans),
 * and chunks the index holds more than once (doubled). Reads the test file's index (testSearchIndex).
 */
export async function indexRowInconsistencies(db: Db): Promise<{ lost: string[]; orphans: string[]; doubled: string[] }> {
  const [generation] = await db.$queryRaw<{ id: number }[]>`SELECT id FROM index_generation WHERE status = 'current'`;
  const chunks = await db.$queryRaw<{ key: string }[]>`
    SELECT chunk_index || ':' || document_id AS key FROM document_chunk WHERE generation_id = ${generation?.id ?? -1}`;
  const table = await testSearchIndex().readable(generation?.id ?? -1);
  const rows = table === null ? [] : ((await table.table.query().select(["chunk_id"]).toArray()) as { chunk_id: string }[]);
  const seen = new Map<string, number>();
  for (const row of rows) seen.set(row.chunk_id, (seen.get(row.chunk_id) ?? 0) + 1);
  const expected = new Set(chunks.map((chunk) => chunk.key));
  return {
    lost: [...expected].filter((key) => !seen.has(key)).slice(0, 20),
    orphans: [...seen.keys()].filter((key) => !expected.has(key)).slice(0, 20),
    doubled: [...seen].filter(([, count]) => count > 1).map(([key]) => key).slice(0, 20),
  };
}

/**
 * After a crash or an outage, once the worker caught up: every document indexed at its latest version
 * with exact chunks and counts and no attempt left open, the search index holding every chunk
 * PostgreSQL has, once, and nothing else, and the `rewritten` documents holding their new text (`marker`).
 */
export async function expectConsistentIndex(db: Db, rewritten: string[], marker: string): Promise<void> {
  expect(await indexInconsistencies(db)).toEqual({ notIndexed: [], chunkMismatches: [], countMismatches: [], openAttempts: 0 });
  expect(await indexRowInconsistencies(db)).toEqual({ lost: [], orphans: [], doubled: [] });
  expect(await documentsMissingText(db, rewritten, marker)).toEqual([]);
}

/**
 * Starts an index rebuild and waits until its pass has counted a batch in `ccPairId`'s rebuild attempt
 * and its next batch waits on a lock (a pair lock the test holds). Returns the building generation.
 */
export async function startRebuildUntilLockWait({ db, boss }: { db: Db; boss: PgBoss }, ccPairId: number, describe: () => string): Promise<number> {
  const started = await startIndexRebuild({ db, boss, principal: OPERATOR_PRINCIPAL });
  const generationId = started.rebuild?.generationId ?? 0;
  await waitFor(
    "the first batch counted and the second waiting on the pair lock",
    async () => {
      const counted = await db.indexAttempt.count({ where: { generationId, ccPairId, status: "in_progress" } });
      const [row] = await db.$queryRaw<{ waiting: number }[]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
      return counted === 1 && (row?.waiting ?? 0) > 0 ? true : undefined;
    },
    { timeoutMs: 60_000, describe },
  );
  return generationId;
}
