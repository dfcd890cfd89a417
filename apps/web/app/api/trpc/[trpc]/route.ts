import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext, retryAfterMeta } from "../../../../server/trpc/init";
import { appRouter } from "../../../../server/trpc/router";

export const dynamic = "force-dynamic";

/**
 * The admin console's tRPC endpoint. Queries come as GET, mutations only as POST (method override
 * stays off); createContext refuses a cross-site POST (see ARCHITECTURE.md, "The admin console").
 */
function handle(request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext,
    responseMeta: retryAfterMeta,
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[svc] tRPC ${path ?? "?"} failed`, error.cause ?? error);
    },
  });
}

export { handle as GET, handle as POST };
