import { CONNECTOR_ROLES, searchDocuments } from "@svc/core";
import { SearchRequestSchema } from "@svc/schema";
import { webEnv } from "../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/svc-api/search: full-text search over the indexed documents the key may see. */
export const POST = restRoute(CONNECTOR_ROLES, async ({ request, principal, services }) => {
  const input = await readJsonBody(request, SearchRequestSchema, webEnv().SVC_MAX_BODY_BYTES);
  return searchDocuments({ db: services.db, principal, request: input });
});
