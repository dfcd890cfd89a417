import { REST_CONTRACT, type HttpMethod, type RestOperationId } from "@svc/schema";
import { hasMalformedEscape } from "../malformed-escape";
import { admitRequest } from "./admit-request";
import { detailResponse } from "./error-response";
import { runRestOperation } from "./run-rest-operation";

/** The API root: contract paths are relative to it. */
export const API_ROOT = "/api";

/** Paths under the API root that are not REST contract routes: Next.js serves them (the console's transports). */
const NEXT_PATHS_UNDER_API = ["/api/trpc", "/api/admin/upload", "/api/admin/files"];

/** Whether the REST dispatcher answers this path (every path under /api but the console's). */
export function isRestPath(pathname: string): boolean {
  if (pathname !== API_ROOT && !pathname.startsWith(`${API_ROOT}/`)) return false;
  return !NEXT_PATHS_UNDER_API.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

interface RestPathMatch {
  operations: RoutePattern["operations"];
  params: Record<string, string>;
}

function isParameter(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

interface RoutePattern {
  segments: string[];
  operations: Partial<Record<HttpMethod, RestOperationId>>;
}

/**
 * The contract's paths, one pattern per path with its operations by method; literal segments before
 * `{name}` ones, so `/svc-api/ingestion/batch` is tried before `/svc-api/ingestion/{document_id}`.
 */
const PATTERNS: RoutePattern[] = (() => {
  const byPath = new Map<string, RoutePattern>();
  for (const [operationId, entry] of Object.entries(REST_CONTRACT) as [RestOperationId, (typeof REST_CONTRACT)[RestOperationId]][]) {
    const path = `${API_ROOT}${entry.path}`;
    const pattern = byPath.get(path) ?? { segments: path.split("/"), operations: {} };
    if (pattern.operations[entry.method]) throw new Error(`REST contract: ${entry.method} ${entry.path} is declared twice`);
    pattern.operations[entry.method] = operationId;
    byPath.set(path, pattern);
  }
  const parameters = (pattern: RoutePattern) => pattern.segments.filter(isParameter).length;
  return [...byPath.values()].sort((a, b) => parameters(a) - parameters(b));
})();

/**
 * The operations a request path names, by method, with the captured `{name}` segments
 * (percent-decoded); null when no contract path matches. Where several paths match (a literal one and
 * a `{name}` one), each method goes to the most literal path that has it: `POST …/ingestion/batch` is
 * the bulk call, `GET …/ingestion/batch` the document whose id is "batch". One trailing slash is
 * ignored, as on every route of the original.
 */
export function matchRestPath(pathname: string): RestPathMatch | null {
  const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  const segments = trimmed.split("/");
  const found: RestPathMatch[] = [];
  for (const pattern of PATTERNS) {
    if (pattern.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.segments.every((segment, index) => {
      const actual = segments[index] ?? "";
      if (isParameter(segment)) {
        params[segment.slice(1, -1)] = decodePathSegment(actual);
        return actual.length > 0;
      }
      return segment === actual;
    });
    if (matches) found.push({ operations: pattern.operations, params });
  }
  if (found.length === 0) return null;
  return found.reduceRight((merged, literal) => ({
    operations: { ...merged.operations, ...literal.operations },
    params: { ...merged.params, ...literal.params },
  }));
}

/**
 * A path segment, percent-decoded (`%2F` is a `/` inside the segment). A path with a malformed
 * escape never gets here (400, dispatchRestRequest); should one, it stays as written.
 */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Answers a request under the API root from the REST contract: 400 for a path with a malformed
 * percent-escape, 404 `{"detail":"Not Found"}` for a
 * path no entry has, 405 with `Allow` for a method the path does not take, else the entry's handler.
 * The production server (server.ts) and the Next.js catch-all route both come here.
 */
export async function dispatchRestRequest(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (hasMalformedEscape(pathname)) return detailResponse(400, "Malformed percent-encoding in the path");
  const match = matchRestPath(pathname);
  if (!match) return detailResponse(404, "Not Found");
  const operationId = match.operations[request.method as HttpMethod];
  if (!operationId) {
    return detailResponse(405, "Method Not Allowed", { allow: Object.keys(match.operations).join(", ") });
  }
  return admitRequest(REST_CONTRACT[operationId], () => runRestOperation(operationId, match.params, request));
}
