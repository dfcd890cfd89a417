import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyInfo } from "@svc/core";
import {
  ApiKeyIdInputSchema,
  ConsoleApiKeySchema,
  CreateConsoleApiKeyInputSchema,
  CreatedConsoleApiKeySchema,
  OkSchema,
  type ConsoleApiKey,
} from "@svc/schema";
import { z } from "zod";
import { router, unscopedAdminProcedure } from "../init";

function toConsoleApiKey({ ccPairIds, ...key }: ApiKeyInfo): ConsoleApiKey {
  return { ...key, scopeCcPairIds: ccPairIds };
}

// Keys are managed by unscoped admins only (the command line's `svc keys …` is the operator's).
export const keysRouter = router({
  list: unscopedAdminProcedure.output(z.array(ConsoleApiKeySchema)).query(async ({ ctx }) => (await listApiKeys({ db: ctx.db })).map(toConsoleApiKey)),

  create: unscopedAdminProcedure
    .input(CreateConsoleApiKeyInputSchema)
    .output(CreatedConsoleApiKeySchema)
    .mutation(async ({ ctx, input }) => {
      const { key, apiKey } = await createApiKey({ db: ctx.db, name: input.name, role: input.role, ccPairIds: input.scopeCcPairIds });
      return { id: apiKey.id, name: apiKey.name, role: apiKey.role, key };
    }),

  /** The key stops working on REST at once (cache eviction + NOTIFY) and its console sessions end. */
  revoke: unscopedAdminProcedure
    .input(ApiKeyIdInputSchema)
    .output(OkSchema)
    .mutation(async ({ ctx, input }) => {
      await revokeApiKey({ db: ctx.db, id: input.id });
      return { ok: true as const };
    }),
});
