import { z } from "zod";

/** One check of a liveness or readiness probe. */
export const ServiceCheckSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  /** Why a check is unavailable (never internal error text). */
  detail: z.string().optional(),
});
export type ServiceCheck = z.infer<typeof ServiceCheckSchema>;

/**
 * Body of `GET /api/health` and `GET /api/ready` (decisions.md "Bulk ingestion, operations, client"): `ok` with 200
 * when every check is, else `unavailable` with 503.
 */
export const ServiceStatusSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  checks: z.record(z.string(), ServiceCheckSchema),
});
export type ServiceStatus = z.infer<typeof ServiceStatusSchema>;

/** How recent a worker's heartbeat must be for the service to count as ready. */
export const WORKER_HEARTBEAT_MAX_AGE_SECONDS = 60;

/**
 * Body of `GET /api/svc-api/instance`: the id of this svc's database, created once with it (the row of
 * `search_index_identity`). A client that keeps state per server (`svc ingest`'s resume state) keys it by
 * this id, not by a URL that may point at a reset or another database.
 */
export const ServiceInstanceSchema = z.object({ instance_id: z.uuid() });
export type ServiceInstance = z.infer<typeof ServiceInstanceSchema>;
