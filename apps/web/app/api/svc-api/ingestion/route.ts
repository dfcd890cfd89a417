import { CONNECTOR_ROLES, ingestDocument, listIngestedDocuments } from "@svc/core";
import { DocumentPageQuerySchema, IngestionDocumentSchema } from "@svc/schema";
import { webEnv } from "../../../../lib/env";
import { readJsonBody, readQueryParams, restRoute } from "../../../../lib/rest";

export const dynamic = "force-dynamic";

/** POST /api/svc-api/ingestion: upsert one document; indexing follows asynchronously. */
export const POST = restRoute(CONNECTOR_ROLES, async ({ request, principal, services }) => {
  const input = await readJsonBody(request, IngestionDocumentSchema, webEnv().SVC_MAX_BODY_BYTES);
  return ingestDocument({ db: services.db, boss: services.boss, principal, input });
});

/** GET /api/svc-api/ingestion?limit=&cursor=: the ingested documents, a page at a time. */
export const GET = restRoute(CONNECTOR_ROLES, async ({ request, principal, services }) => {
  const { limit, cursor } = readQueryParams(request, DocumentPageQuerySchema);
  return listIngestedDocuments({ db: services.db, principal, limit, afterId: cursor });
});
