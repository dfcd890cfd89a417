import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOG_LEVELS } from "@svc/schema";
import { z } from "zod";
import { UsageError } from "./cli-error";

/** The repository root, found from this file (src/ in development, dist/ when built). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const CliEnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  SVC_DATA_DIR: z.string().default(path.join(REPO_ROOT, ".data")),
  SVC_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** `svc ingest`: the API root of a running svc (…/api); by default this machine's on PORT. */
  SVC_URL: z.url().optional(),
  /** `svc ingest`: an admin or curator API key, so that it does not show in the process list. */
  SVC_API_KEY: z.string().min(1).optional(),
  /** `svc ingest`: where it remembers what it sent (for resuming); by default under XDG_CACHE_HOME. */
  SVC_INGEST_STATE: z.string().min(1).optional(),
  XDG_CACHE_HOME: z.string().min(1).optional(),
  HOME: z.string().default(process.cwd()),
  // The search index, passed to web and worker; beside the embedded database's data by default (also
  // with an external DATABASE_URL). An object-store URI (s3://bucket/svc-index) serves several machines.
  SVC_INDEX_DIR: z.string().min(1).optional(),
  /**
   * `svc start`: how much lower than the web server's the worker's CPU priority is (Unix nice, 0–19).
   * Raised, accepting stays responsive on a saturated machine and indexing gets what is left, so it can
   * fall behind; 0 by default, since documents searchable per second is what users wait on
   * (bench/RESULTS.md, "bench/e2e": at 200/s on 2 cores, nice 10 halved the accept p99 and indexed 164/s).
   */
  SVC_WORKER_NICE: z.coerce.number().int().min(0).max(19).default(0),
  /**
   * `svc start`: how much lower than the web server's the index maintenance process's CPU priority is
   * (Unix nice, 0–19): its merges rebuild a table's whole FTS index and take what the web server and
   * the worker leave, so a merge never holds back accepting, indexing or searching for long.
   */
  SVC_INDEX_MAINTENANCE_NICE: z.coerce.number().int().min(0).max(19).default(5),
  /** `svc start`: how long a stop (web, worker, maintenance, PostgreSQL) may take before what is left is killed; the worker reads it too. */
  SVC_SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(30_000),
  /** `svc start`'s own lines (its web and worker read it too). */
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
});

export type CliEnv = z.infer<typeof CliEnvSchema>;

/** The environment, checked; a variable set to "" counts as unset (as `SVC_API_KEY= svc …` means). */
/** Where web and worker keep the search index: SVC_INDEX_DIR, else `<SVC_DATA_DIR>/index`. */
export function indexDirOf(env: CliEnv): string {
  return env.SVC_INDEX_DIR ?? path.join(env.SVC_DATA_DIR, "index");
}

export function cliEnv(): CliEnv {
  const set = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ""));
  const parsed = CliEnvSchema.safeParse(set);
  if (!parsed.success) {
    throw new UsageError(`Invalid environment: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  }
  return parsed.data;
}
