import { ADMIN_ROLES, cancelIndexRebuild, getIndexRebuildStatus, startIndexRebuild } from "@svc/core";
import { IndexRebuildRequestSchema, type IndexRebuildStatus } from "@svc/schema";
import { webEnv } from "../../../../../../lib/env";
import { readJsonBody, restRoute } from "../../../../../../lib/rest";

export const dynamic = "force-dynamic";

/** GET /api/manage/admin/search-index/rebuild: the current generation, the rebuild in progress, the last one. */
export const GET = restRoute(ADMIN_ROLES, async ({ services }): Promise<IndexRebuildStatus> =>
  getIndexRebuildStatus({ db: services.db }),
);

/** POST /api/manage/admin/search-index/rebuild: 202, a rebuild runs in the background (the body is optional). */
export const POST = restRoute(ADMIN_ROLES, async ({ request, principal, services }) => {
  const input = await readJsonBody(request, IndexRebuildRequestSchema, webEnv().SVC_MAX_BODY_BYTES, { emptyBody: {} });
  const status = await startIndexRebuild({
    db: services.db,
    boss: services.boss,
    principal,
    chunkTokenLimit: input.chunk_token_limit,
    textSearchConfig: input.text_search_config,
  });
  return Response.json(status, { status: 202 });
});

/** DELETE /api/manage/admin/search-index/rebuild: cancel the running rebuild. */
export const DELETE = restRoute(ADMIN_ROLES, async ({ principal, services }): Promise<IndexRebuildStatus> =>
  cancelIndexRebuild({ db: services.db, boss: services.boss, principal }),
);
