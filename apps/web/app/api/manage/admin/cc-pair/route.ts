import { ADMIN_ROLES, createCcPair } from "@svc/core";
import { CreateCcPairRequestSchema, type CreatedCcPair } from "@svc/schema";
import { webEnv } from "../../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/manage/admin/cc-pair: a connector, a credential and their pair (SCHEDULED). */
export const POST = restRoute(ADMIN_ROLES, async ({ request, services }): Promise<CreatedCcPair> => {
  const input = await readJsonBody(request, CreateCcPairRequestSchema, webEnv().SVC_MAX_BODY_BYTES);
  const created = await createCcPair({
    db: services.db,
    name: input.name,
    source: input.source,
    accessType: input.access_type,
  });
  return { cc_pair_id: created.ccPairId, connector_id: created.connectorId, credential_id: created.credentialId };
});
