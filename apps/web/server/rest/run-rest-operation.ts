import { authenticateApiKey, requireRole } from "@svc/core";
import { REST_CONTRACT, successStatus, type RestEndpoint, type RestOperationId } from "@svc/schema";
import { webEnv } from "../env";
import { getServices } from "../services";
import { errorResponse } from "./error-response";
import { readJsonBody, readPathParams, readQueryParams } from "./read-request";
import { REST_HANDLERS, type RestHandlerInput } from "./rest-handlers";

/**
 * One call of a contract entry: bearer authentication and role check first (before the body is
 * read), then the path, query and body parsed with the entry's schemas, the handler, and one mapping
 * from errors to responses. A handler's value is sent as JSON with the entry's 2xx status.
 */
export async function runRestOperation(
  operationId: RestOperationId,
  pathParams: Record<string, string>,
  request: Request,
): Promise<Response> {
  const entry: RestEndpoint = REST_CONTRACT[operationId];
  // Each handler is typed by its own entry; here the entry is only known at run time.
  const handler = REST_HANDLERS[operationId] as unknown as (input: RestHandlerInput<RestEndpoint>) => unknown;
  try {
    const caller = entry.auth === "public" ? {} : await authenticate(request, entry.auth);
    const path = entry.pathParams ? readPathParams(pathParams, entry.pathParams.schema) : undefined;
    const query = entry.query ? readQueryParams(request, entry.query.schema) : undefined;
    const body =
      entry.body?.type === "json"
        ? await readJsonBody(request, entry.body.schema, webEnv().SVC_MAX_BODY_BYTES, entry.body.required ? {} : { emptyBody: {} })
        : undefined;
    const result = await handler({ request, path, query, body, ...caller } as RestHandlerInput<RestEndpoint>);
    return result instanceof Response ? result : Response.json(result, { status: successStatus(entry) });
  } catch (error) {
    return errorResponse(error);
  }
}

async function authenticate(request: Request, roles: Exclude<RestEndpoint["auth"], "public">) {
  const services = await getServices();
  const principal = await authenticateApiKey({
    db: services.db,
    authorization: request.headers.get("authorization"),
    cache: services.apiKeys,
  });
  requireRole(principal, roles);
  return { principal, services };
}
