import { CONNECTOR_ROLES, listCcPairDocuments } from "@svc/core";
import { CcPairIdPathSchema, DocumentPageQuerySchema } from "@svc/schema";
import { readPathParams, readQueryParams, restRoute } from "../../../../../lib/rest";

export const dynamic = "force-dynamic";

type Params = { cc_pair_id: string };

/** GET /api/svc-api/connector-docs/{cc_pair_id}?limit=&cursor=: one pair's documents, a page at a time. */
export const GET = restRoute<Params>(CONNECTOR_ROLES, async ({ request, params, principal, services }) => {
  const { cc_pair_id: ccPairId } = readPathParams(params, CcPairIdPathSchema);
  const { limit, cursor } = readQueryParams(request, DocumentPageQuerySchema);
  return listCcPairDocuments({ db: services.db, principal, ccPairId, limit, afterId: cursor });
});
