import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The repository root, found from this file (src/ in development, dist/ when built). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const CliEnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  SVC_DATA_DIR: z.string().default(path.join(REPO_ROOT, ".data")),
  SVC_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
});

export type CliEnv = z.infer<typeof CliEnvSchema>;

export function cliEnv(): CliEnv {
  return CliEnvSchema.parse(process.env);
}
