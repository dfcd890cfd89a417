import { createCallerFactory, router } from "./init";
import { connectorsRouter } from "./routers/connectors";
import { documentsRouter } from "./routers/documents";
import { healthRouter } from "./routers/health";
import { keysRouter } from "./routers/keys";
import { sessionRouter } from "./routers/session";
import { uploadsRouter } from "./routers/uploads";
import { webhooksRouter } from "./routers/webhooks";

/** The admin console's API (/api/trpc): one router per area, procedures thin over core functions. */
export const appRouter = router({
  session: sessionRouter,
  connectors: connectorsRouter,
  documents: documentsRouter,
  health: healthRouter,
  keys: keysRouter,
  uploads: uploadsRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
