import { z } from "zod";

const MiB = 1024 * 1024;

/** The web app's configuration, validated once. Packages receive these values as arguments. */
const WebEnvSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL must be set (the start command sets it for the embedded database)"),
  SVC_MAX_BODY_BYTES: z.coerce.number().int().positive().default(32 * MiB),
  SVC_MAX_UPLOAD_FILE_BYTES: z.coerce.number().int().positive().default(20 * MiB),
  SVC_MAX_UPLOAD_REQUEST_BYTES: z.coerce.number().int().positive().default(100 * MiB),
  SVC_DB_POOL_SIZE: z.coerce.number().int().positive().default(16),
});

export type WebEnv = z.infer<typeof WebEnvSchema>;

let cached: WebEnv | undefined;

export function webEnv(): WebEnv {
  cached ??= WebEnvSchema.parse(process.env);
  return cached;
}
