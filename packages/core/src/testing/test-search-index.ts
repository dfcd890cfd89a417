import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeSearchIndexAt, searchIndexAt, type SearchIndexTables } from "../index";

/**
 * The search index of this test process: SVC_INDEX_DIR when it is set, else a new temporary
 * directory, which is then put in SVC_INDEX_DIR so that the app code under test (the web's services)
 * opens the same index. Each test file runs in a process of its own, so each has its own index, as it
 * has its own database.
 */
export function testSearchIndex(): SearchIndexTables {
  process.env.SVC_INDEX_DIR ??= mkdtempSync(path.join(tmpdir(), "svc-test-index-"));
  return searchIndexAt(process.env.SVC_INDEX_DIR);
}

/** A new temporary index directory for a server or worker a test starts in another process. */
export function makeTestIndexDir(): string {
  return mkdtempSync(path.join(tmpdir(), "svc-test-index-"));
}

/** Closes this process's test index and removes its directory. */
export async function removeTestSearchIndex(): Promise<void> {
  const dir = process.env.SVC_INDEX_DIR;
  if (dir === undefined || !dir.startsWith(tmpdir())) return;
  await closeSearchIndexAt(dir);
  await rm(dir, { recursive: true, force: true });
}
