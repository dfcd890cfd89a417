import * as ccPair from "../app/api/manage/admin/cc-pair/[id]/route";
import * as ccPairs from "../app/api/manage/admin/cc-pair/route";
import * as indexingStatus from "../app/api/manage/admin/connector/indexing-status/route";
import * as federatedConnector from "../app/api/manage/admin/federated-connector/[id]/route";
import * as federatedConnectors from "../app/api/manage/admin/federated-connector/route";
import * as searchIndexRebuild from "../app/api/manage/admin/search-index/rebuild/route";
import * as connectorDocs from "../app/api/svc-api/connector-docs/[cc_pair_id]/route";
import * as ingestionDocument from "../app/api/svc-api/ingestion/[document_id]/route";
import * as ingestion from "../app/api/svc-api/ingestion/route";
import * as search from "../app/api/svc-api/search/route";
import * as openapi from "../app/api/openapi.json/route";
import * as fileUpload from "../app/api/user/file/upload/route";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route types its own params
export type RouteHandler = (request: Request, context: { params: Promise<any> }) => Response | Promise<Response>;
export type RouteModule = Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", RouteHandler>>;

/**
 * The REST routes, by path pattern (`[name]` captures one segment). Next.js serves them from app/api;
 * the production server (server.ts) dispatches these paths to the same handlers directly, skipping
 * Next's page pipeline, and the tests call them in-process through this table too.
 */
export const REST_ROUTES: { pattern: string; module: RouteModule }[] = [
  { pattern: "/api/svc-api/ingestion", module: ingestion },
  { pattern: "/api/svc-api/ingestion/[document_id]", module: ingestionDocument },
  { pattern: "/api/svc-api/connector-docs/[cc_pair_id]", module: connectorDocs },
  { pattern: "/api/svc-api/search", module: search },
  { pattern: "/api/user/file/upload", module: fileUpload },
  { pattern: "/api/openapi.json", module: openapi },
  { pattern: "/api/manage/admin/connector/indexing-status", module: indexingStatus },
  { pattern: "/api/manage/admin/cc-pair", module: ccPairs },
  { pattern: "/api/manage/admin/cc-pair/[id]", module: ccPair },
  { pattern: "/api/manage/admin/federated-connector", module: federatedConnectors },
  { pattern: "/api/manage/admin/federated-connector/[id]", module: federatedConnector },
  { pattern: "/api/manage/admin/search-index/rebuild", module: searchIndexRebuild },
];

const compiled = REST_ROUTES.map((route) => ({ ...route, segments: route.pattern.split("/") }));

/** The route for a path, with its captured params; null when the path is not a REST route. */
export function matchRestRoute(pathname: string): { module: RouteModule; params: Record<string, string> } | null {
  const segments = pathname.split("/");
  for (const route of compiled) {
    if (route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = route.segments.every((segment, index) => {
      const actual = segments[index] ?? "";
      if (segment.startsWith("[") && segment.endsWith("]")) {
        params[segment.slice(1, -1)] = decodePathSegment(actual);
        return actual.length > 0;
      }
      return segment === actual;
    });
    if (matches) return { module: route.module, params };
  }
  return null;
}

/**
 * A path segment, percent-decoded (`%2F` is a `/` inside the segment). Malformed escapes stay as
 * they are, as Starlette leaves them, instead of failing the request.
 */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** Calls the route's handler for the request's method; 405 when the route has none. */
export async function dispatchRestRoute(
  route: { module: RouteModule; params: Record<string, string> },
  request: Request,
): Promise<Response> {
  const handler = route.module[request.method as keyof RouteModule];
  if (!handler) {
    const allowed = Object.keys(route.module).filter((key) => /^[A-Z]+$/.test(key));
    return Response.json({ detail: "Method Not Allowed" }, { status: 405, headers: { allow: allowed.join(", ") } });
  }
  return handler(request, { params: Promise.resolve(route.params) });
}
