import { createApiKey, listApiKeys, revokeApiKey } from "@svc/core";
import {
  ApiKeyIdInputSchema,
  ApiKeySummarySchema,
  CreateConsoleApiKeyInputSchema,
  CreatedConsoleApiKeySchema,
  OkSchema,
} from "@svc/schema";
import { z } from "zod";
import { acknowledge, router, unscopedAdminProcedure } from "../init";

// Keys are managed by unscoped admins only (the command line's `svc keys …` is the operator's).
export const keysRouter = router({
  list: unscopedAdminProcedure.output(z.array(ApiKeySummarySchema)).query(({ ctx }) => listApiKeys({ db: ctx.db })),

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
    .mutation(({ ctx, input }) => acknowledge(revokeApiKey({ db: ctx.db, id: input.id }))),
});
