import { z } from "zod";

const WorkerEnvSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL must be set (the start command sets it for the embedded database)"),
  SVC_WORKER_BATCH_SIZE: z.coerce.number().int().positive().default(50),
  SVC_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  // How often the worker stamps its heartbeat row (readiness needs one within 60 s).
  SVC_WORKER_HEARTBEAT_SECONDS: z.coerce.number().positive().max(30).default(15),
  SVC_SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(30_000),
});

export type WorkerEnv = z.infer<typeof WorkerEnvSchema>;

export function workerEnv(): WorkerEnv {
  return WorkerEnvSchema.parse(process.env);
}
