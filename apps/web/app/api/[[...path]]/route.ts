import { dispatchRestRequest } from "../../../server/rest/dispatch-rest-request";

export const dynamic = "force-dynamic";

/**
 * Every REST path under /api, for `next dev` and `next start`: the same dispatcher as the production
 * server (server.ts), driven by the REST contract (`@svc/schema` REST_CONTRACT). The console's
 * /api/trpc, /api/admin/upload and /api/admin/files have routes of their own, which Next.js prefers
 * to this one.
 */
function handle(request: Request): Promise<Response> {
  return dispatchRestRequest(request);
}

export { handle as DELETE, handle as GET, handle as HEAD, handle as OPTIONS, handle as PATCH, handle as POST, handle as PUT };
