import { CONNECTOR_ROLES, listIndexingStatus } from "@svc/core";
import { IndexingStatusRequestSchema } from "@svc/schema";
import { webEnv } from "../../../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/manage/admin/connector/indexing-status: pairs and federated connectors by source, filtered and paged. */
export const POST = restRoute(CONNECTOR_ROLES, async ({ request, principal, services }) => {
  const input = await readJsonBody(request, IndexingStatusRequestSchema, webEnv().SVC_MAX_BODY_BYTES);
  return listIndexingStatus({ db: services.db, principal, request: input });
});
