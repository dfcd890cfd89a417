import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/** A URI with a scheme other than `file:` names an object store, whose size no directory walk finds. */
const OBJECT_STORE_URI = /^(?!file:)[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The bytes of every file under a local index directory: every generation's table (the serving one,
 * one being built, retired ones not purged yet), the versions LanceDB keeps until the worker's
 * optimize prunes them, manifests and deletion files, the index marker: so at least the sum of
 * measureGenerationTable's bytes, which count a table's current version only. The files' own sizes
 * (as `du --apparent-size` counts them). 0 for a directory that does not exist yet; null for an
 * object store (`s3://…`), which is not walked.
 */
export async function measureIndexFolder({ uri }: { uri: string }): Promise<number | null> {
  if (OBJECT_STORE_URI.test(uri)) return null;
  const root = uri.startsWith("file://") ? new URL(uri).pathname : uri;
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  let bytes = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    // A file the worker's optimize removes meanwhile no longer counts.
    const stats = await lstat(path.join(entry.parentPath, entry.name)).catch(() => null);
    bytes += stats?.size ?? 0;
  }
  return bytes;
}
