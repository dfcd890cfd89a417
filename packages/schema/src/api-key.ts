import { z } from "zod";

/** An API key's role. Keys are managed by the CLI and the console (camelCase: `admin-console.ts`); no REST endpoint shows one. */
export const ApiKeyRoleSchema = z.enum(["admin", "curator", "basic", "limited"]);
export type ApiKeyRole = z.infer<typeof ApiKeyRoleSchema>;
