import { ADMIN_ROLES, createFederatedConnector } from "@svc/core";
import { CreateFederatedConnectorRequestSchema } from "@svc/schema";
import { webEnv } from "../../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/manage/admin/federated-connector: a connector that searches its source live. */
export const POST = restRoute(ADMIN_ROLES, async ({ request, services }) => {
  const input = await readJsonBody(request, CreateFederatedConnectorRequestSchema, webEnv().SVC_MAX_BODY_BYTES);
  return createFederatedConnector({ db: services.db, source: input.source, name: input.name });
});
