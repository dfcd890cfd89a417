import { ADMIN_ROLES, deleteCcPair, getCcPair, updateCcPair } from "@svc/core";
import { IdPathSchema, UpdateCcPairRequestSchema } from "@svc/schema";
import { webEnv } from "../../../../../../lib/env";
import { readJsonBody, readPathParams, restRoute } from "../../../../../../lib/rest";

export const dynamic = "force-dynamic";

type Params = { id: string };

/** GET /api/manage/admin/cc-pair/{id} */
export const GET = restRoute<Params>(ADMIN_ROLES, async ({ params, principal, services }) => {
  const { id } = readPathParams(params, IdPathSchema);
  return getCcPair({ db: services.db, principal, ccPairId: id });
});

/** PATCH /api/manage/admin/cc-pair/{id}: rename; `status` PAUSED pauses, ACTIVE resumes. */
export const PATCH = restRoute<Params>(ADMIN_ROLES, async ({ request, params, principal, services }) => {
  const { id } = readPathParams(params, IdPathSchema);
  const input = await readJsonBody(request, UpdateCcPairRequestSchema, webEnv().SVC_MAX_BODY_BYTES);
  return updateCcPair({ db: services.db, boss: services.boss, principal, ccPairId: id, name: input.name, status: input.status });
});

/** DELETE /api/manage/admin/cc-pair/{id}: 202, the pair is DELETING until the background job removes it. */
export const DELETE = restRoute<Params>(ADMIN_ROLES, async ({ params, principal, services }) => {
  const { id } = readPathParams(params, IdPathSchema);
  const pair = await deleteCcPair({ db: services.db, boss: services.boss, principal, ccPairId: id });
  return Response.json(pair, { status: 202 });
});
