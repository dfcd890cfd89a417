import { z } from "zod";

/** An API key's role. Keys are managed by the CLI and the console (camelCase: `admin-console.ts`); no REST endpoint shows one. */
export const ApiKeyRoleSchema = z.enum(["admin", "curator", "basic", "limited"]);
export type ApiKeyRole = z.infer<typeof ApiKeyRoleSchema>;

/**
 * Failed key checks (REST 401s) and failed console sign-ins one client address may make in a
 * minute before its next ones are refused with 429 (SVC_CREDENTIAL_FAILURES_PER_MINUTE).
 */
export const DEFAULT_CREDENTIAL_FAILURES_PER_MINUTE = 20;
