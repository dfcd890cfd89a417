import { ADMIN_ROLES, deleteFederatedConnector } from "@svc/core";
import { IdPathSchema } from "@svc/schema";
import { readPathParams, restRoute } from "../../../../../../lib/rest";

export const dynamic = "force-dynamic";

/** DELETE /api/manage/admin/federated-connector/{id} */
export const DELETE = restRoute<{ id: string }>(ADMIN_ROLES, async ({ params, services }) => {
  const { id } = readPathParams(params, IdPathSchema);
  return deleteFederatedConnector({ db: services.db, id });
});
