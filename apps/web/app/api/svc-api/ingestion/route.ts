import { CONNECTOR_ROLES, ingestDocument } from "@svc/core";
import { IngestionDocumentSchema } from "@svc/schema";
import { webEnv } from "../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/svc-api/ingestion: upsert one document; indexing follows asynchronously. */
export const POST = restRoute(CONNECTOR_ROLES, async ({ request, principal, services }) => {
  const input = await readJsonBody(request, IngestionDocumentSchema, webEnv().SVC_MAX_BODY_BYTES);
  return ingestDocument({ db: services.db, boss: services.boss, principal, input });
});
