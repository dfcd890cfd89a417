import { readFileSync } from "node:fs";
import { Gauge, type Registry } from "prom-client";

/**
 * What a process's resident memory is made of, in bytes (Linux's /proc/self/status): `anonymous` is
 * what its work allocates (V8's heap, native buffers, LanceDB's caches and write buffers), `file` the
 * pages of files it maps (mostly code: node's binary and LanceDB's native module, shared with every
 * process that maps them), `shmem` shared memory. RSS is their sum; only `anonymous` moves with load.
 */
export interface ResidentMemory {
  anonymous: number;
  file: number;
  shmem: number;
}

const KIB = 1024;

/** The resident-memory split of a /proc/PID/status text; zeros where a field is missing. */
export function parseResidentMemory(status: string): ResidentMemory {
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * KIB;
  return { anonymous: field("RssAnon"), file: field("RssFile"), shmem: field("RssShmem") };
}

/** Resident bytes of the mappings in a /proc/PID/smaps text whose file path `matches`. */
export function residentBytesOfMappings(smaps: string, matches: (path: string) => boolean): number {
  let counting = false;
  let bytes = 0;
  for (const line of smaps.split("\n")) {
    // A mapping's header: "start-end perms offset dev inode [path]"; its fields follow, one a line.
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      counting = matches(header[1] ?? "");
      continue;
    }
    if (counting && line.startsWith("Rss:")) bytes += Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * KIB;
  }
  return bytes;
}

/** LanceDB's native module (`lancedb.linux-x64-gnu.node` and the like). */
const isSearchIndexModule = (path: string) => /lancedb[^/]*\.node$/.test(path);

/**
 * How old the module pages' reading may be: it walks every mapping of the process (/proc/self/smaps,
 * a few milliseconds), and a worker's registry is read up to once a second under load.
 */
const MODULE_PAGES_MAX_AGE_MS = 15_000;

function readProc(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    // Not Linux: the gauges read 0.
    return "";
  }
}

/**
 * Adds `svc_process_resident_memory_bytes{kind}` to the registry: the process's resident memory
 * split into `anonymous`, `file` and `shmem` (their sum is prom-client's
 * `process_resident_memory_bytes`), and `search_index_module`, the pages of LanceDB's native module
 * (part of `file`): the code any process that searches or writes the index holds, whatever its load.
 */
export function registerResidentMemory(registry: Registry): void {
  let modulePages = 0;
  let modulePagesReadAt = -Infinity;
  new Gauge({
    name: "svc_process_resident_memory_bytes",
    help:
      "Resident memory of the process by kind: anonymous (what its work allocates: heap, native buffers, caches), file (mapped files' pages, mostly code), shmem; " +
      "search_index_module is the part of file that is LanceDB's native module (read at most every 15 s)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const { anonymous, file, shmem } = parseResidentMemory(readProc("/proc/self/status"));
      if (Date.now() - modulePagesReadAt >= MODULE_PAGES_MAX_AGE_MS) {
        modulePagesReadAt = Date.now();
        modulePages = residentBytesOfMappings(readProc("/proc/self/smaps"), isSearchIndexModule);
      }
      this.set({ kind: "anonymous" }, anonymous);
      this.set({ kind: "file" }, file);
      this.set({ kind: "shmem" }, shmem);
      this.set({ kind: "search_index_module" }, modulePages);
    },
  });
}
