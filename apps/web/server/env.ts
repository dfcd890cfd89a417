import { DEFAULT_CREDENTIAL_FAILURES_PER_MINUTE, LOG_LEVELS, MAX_BODY_VALIDATION_MS } from "@svc/schema";
import { z } from "zod";

const MiB = 1024 * 1024;

/** The web app's configuration, validated once. Packages receive these values as arguments. */
const WebEnvSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL must be set (the start command sets it for the embedded database)"),
  SVC_MAX_BODY_BYTES: z.coerce.number().int().positive().default(32 * MiB),
  SVC_MAX_UPLOAD_FILE_BYTES: z.coerce.number().int().positive().default(20 * MiB),
  SVC_MAX_UPLOAD_REQUEST_BYTES: z.coerce.number().int().positive().default(100 * MiB),
  // Webhook endpoints may be loopback or private addresses (docs/decisions.md "Webhooks").
  SVC_WEBHOOK_ALLOW_PRIVATE: z.stringbool().default(false),
  SVC_DB_POOL_SIZE: z.coerce.number().int().positive().default(16),
  // A request body that stops arriving this long before its end is answered 408 (decisions: within 10 s).
  SVC_BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(8_000),
  // Validating one JSON body (a batch's items together) stops after this much work: 413, nothing stored.
  SVC_BODY_VALIDATION_MS: z.coerce.number().int().positive().default(MAX_BODY_VALIDATION_MS),
  // Every statement of this process's pool (the queries clients shape: listings, documents, the
  // console) stops after this long and the request answers 503 with Retry-After (decisions.md).
  SVC_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  // Longest waits for a pooled connection and for a new one's handshake (decisions: "Limits and overload").
  SVC_DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
  SVC_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
  // Admission control (decisions: "Limits and overload"): ingestion answers 429 past either bound.
  // Unset: four per database connection (SVC_DB_POOL_SIZE), enough to keep the pool busy.
  SVC_MAX_IN_FLIGHT: z.coerce.number().int().positive().optional(),
  // The production server's in-flight limit adapts below SVC_MAX_IN_FLIGHT so that admitted ingestions
  // finish within this time (90th percentile over 0.5 s; 0: a fixed limit).
  SVC_ADMISSION_TARGET_MS: z.coerce.number().int().nonnegative().default(250),
  SVC_MAX_QUEUE_DEPTH: z.coerce.number().int().nonnegative().default(50_000),
  // …and past this event-loop delay (p99 over 0.5 s; 0: off), since requests then wait unparsed.
  SVC_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().nonnegative().default(200),
  // Sockets the web server holds open at once; past it, new connections are closed unanswered.
  SVC_MAX_CONNECTIONS: z.coerce.number().int().positive().default(1024),
  // Event streams (GET /svc-api/events) one web process serves at once; past it, 429 (decisions: "Events").
  // Each holds a socket, so keep it well below SVC_MAX_CONNECTIONS.
  SVC_MAX_EVENT_STREAMS: z.coerce.number().int().positive().default(256),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  // A bearer token that may read GET /api/metrics besides admin keys (a Prometheus scrape config need
  // not hold an admin key). Unset: admin keys only; the endpoint is never open.
  SVC_METRICS_TOKEN: z
    .string()
    .min(16, "SVC_METRICS_TOKEN must be at least 16 characters")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  // The search index (LanceDB): a directory, or an object-store URI (s3://…, gs://…, az://…) shared
  // with the workers. `svc start` passes its own (beside the embedded database's data).
  SVC_INDEX_DIR: z.string().min(1).default(".data/index"),
  // Failed key checks and console sign-ins one client address may make in a minute; past it, 429
  // until the minute is over (0: off). In memory, per web process (credential-throttle.ts).
  SVC_CREDENTIAL_FAILURES_PER_MINUTE: z.coerce.number().int().nonnegative().default(DEFAULT_CREDENTIAL_FAILURES_PER_MINUTE),
  // Each search stops after this long: 503 "Search took too long; narrow the query" (decisions.md).
  SVC_SEARCH_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
});

export type WebEnv = z.infer<typeof WebEnvSchema>;

let cached: WebEnv | undefined;

export function webEnv(): WebEnv {
  cached ??= WebEnvSchema.parse(process.env);
  return cached;
}
