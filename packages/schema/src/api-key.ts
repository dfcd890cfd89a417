import { z } from "zod";
import { pyEnum, pyInt, pyList, pyModel, pyString } from "./pydantic-fields";

export const ApiKeyRoleSchema = z.enum(["admin", "curator", "basic", "limited"]);
export type ApiKeyRole = z.infer<typeof ApiKeyRoleSchema>;

/** Issuing a key; `cc_pair_ids` scopes it to those pairs (none: unscoped). */
export const CreateApiKeyRequestSchema = pyModel("CreateApiKeyRequest", {
  name: pyString({ minLength: 1 }),
  role: pyEnum(ApiKeyRoleSchema),
  cc_pair_ids: pyList(pyInt({ ge: 1 })).default(() => []),
});
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequestSchema>;

/** A key as listed: never the key itself, only its first characters. */
export const ApiKeyInfoSchema = z.object({
  id: z.int(),
  name: z.string(),
  role: ApiKeyRoleSchema,
  display_prefix: z.string(),
  cc_pair_ids: z.array(z.int()),
  created_at: z.iso.datetime({ offset: true }),
  last_used_at: z.iso.datetime({ offset: true }).nullable(),
  revoked_at: z.iso.datetime({ offset: true }).nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfoSchema>;

/** Answer to issuing a key: the only time the plain key is ever shown. */
export const CreatedApiKeySchema = ApiKeyInfoSchema.extend({
  key: z.string(),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;
